(function(){
"use strict";
function init(root){
if(root.getAttribute("data-cite-ready"))return;
root.setAttribute("data-cite-ready","1");
var panel=root.querySelector(".cite-panel");
var opener=null,returning=false;
function tipFor(sup){return sup.querySelector(".cite-tip");}
function place(sup){
var tip=tipFor(sup);if(!tip||returning)return;
sup.classList.remove("cite-tip-off","cite-tip-below");
sup.classList.add("cite-tip-measure");
tip.style.setProperty("--cite-shift","0px");
var r=tip.getBoundingClientRect(),w=document.documentElement.clientWidth,s=0;
sup.classList.remove("cite-tip-measure");
if(r.top<8)sup.classList.add("cite-tip-below");
if(r.left<8)s=8-r.left;else if(r.right>w-8)s=w-8-r.right;
tip.style.setProperty("--cite-shift",s+"px");
}
function close(){
if(!panel||panel.hidden)return;
panel.hidden=true;
if(opener){returning=true;opener.focus();returning=false;opener=null;}
}
function open(marker){
if(!panel)return false;
var ref=marker.getAttribute("data-ref"),ids=(marker.getAttribute("data-cites")||"").split(" ");
var src=null,list=panel.querySelectorAll(".cite-source");
for(var i=0;i<list.length;i++){var hit=list[i].getAttribute("data-ref")===ref;list[i].hidden=!hit;if(hit)src=list[i];}
if(!src)return false;
var marks=panel.querySelectorAll("mark.cite-active");
for(i=0;i<marks.length;i++)marks[i].classList.remove("cite-active");
var first=null;
marks=src.querySelectorAll("mark[data-c]");
for(i=0;i<marks.length;i++){
var own=(marks[i].getAttribute("data-c")||"").split(" ");
for(var j=0;j<ids.length;j++){if(ids[j]&&own.indexOf(ids[j])>=0){marks[i].classList.add("cite-active");if(!first)first=marks[i];break;}}
}
opener=marker;
var sup=marker.closest(".cite-sup");if(sup)sup.classList.add("cite-tip-off");
panel.hidden=false;
var head=src.querySelector(".cite-source-head");
if(head)head.focus({preventScroll:true});else panel.focus({preventScroll:true});
if(first)first.scrollIntoView({block:"center"});
return true;
}
var sups=root.querySelectorAll(".cite-sup");
for(var i=0;i<sups.length;i++){(function(sup){
var a=sup.querySelector(".cite-marker");
sup.addEventListener("mouseenter",function(){place(sup);});
sup.addEventListener("mouseleave",function(){if(sup.contains(document.activeElement))sup.classList.add("cite-tip-off");});
a.addEventListener("focus",function(){place(sup);});
a.addEventListener("click",function(e){if(e.ctrlKey||e.metaKey||e.shiftKey)return;if(open(a))e.preventDefault();});
if(panel)a.setAttribute("aria-controls",panel.id);
})(sups[i]);}
root.addEventListener("keydown",function(e){
if(e.key!=="Escape")return;
if(panel&&!panel.hidden){close();e.preventDefault();return;}
var sup=e.target&&e.target.closest&&e.target.closest(".cite-sup");
if(sup){sup.classList.add("cite-tip-off");e.preventDefault();}
});
if(panel){var b=panel.querySelector(".cite-close");if(b)b.addEventListener("click",close);}
}
function all(){var roots=document.querySelectorAll(".cite-answer");for(var i=0;i<roots.length;i++)init(roots[i]);}
if(document.readyState==="loading")document.addEventListener("DOMContentLoaded",all);else all();
})();
