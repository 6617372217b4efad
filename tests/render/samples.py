"""Real cited answers (English and Chinese) built with cite_core.parse_answer, for rendering tests."""

from __future__ import annotations

from cite_core import CitedAnswer, number_sources, parse_answer

EN_SOURCES = [
    {
        "text": (
            "Photosynthesis is the process by which green plants turn light into chemical energy. "
            "It takes place mainly in the chloroplasts of leaf cells. Chlorophyll, the green pigment, "
            "absorbs red and blue light and reflects green light, which is why leaves look green. "
            "The process releases oxygen as a by-product."
        ),
        "title": "Photosynthesis — an introduction",
        "url": "https://example.org/biology/photosynthesis",
        "author": "M. Rivera",
    },
    {
        "text": (
            "The daytime sky looks blue because of Rayleigh scattering. Sunlight is scattered by the "
            "molecules of the air, and shorter wavelengths are scattered much more strongly than "
            "longer ones. "
            "At sunset the light crosses more air, so the blue is scattered away and reds dominate."
        ),
        "title": "Why is the sky blue?",
        "url": "https://example.org/physics/sky",
    },
    {
        "pages": [
            "Lecture notes on optics. Chapter 1 covers reflection and refraction.",
            (
                "Lord Rayleigh described the scattering of light by small particles in 1871. "
                "The intensity of the scattered light varies with the inverse fourth power of the wavelength."
            ),
        ],
        "title": "Optics lecture notes (PDF)",
        "author": "J. Chen",
    },
]

EN_ANSWER = (
    "Leaves look green because chlorophyll absorbs red and blue light and reflects green light [1]. "
    "The sky is blue because shorter wavelengths are scattered much more strongly by the air [2][3]. "
    "Rayleigh described this scattering of light by small particles in 1871 [3]."
)

ZH_SOURCES = [
    {
        "text": (
            "光合作用是绿色植物利用光能把二氧化碳和水转化为有机物并释放氧气的过程。"
            "这个过程主要发生在叶肉细胞的叶绿体中。叶绿素主要吸收红光和蓝紫光，反射绿光，所以叶子看起来是绿色的。"
        ),
        "title": "光合作用简介",
        "url": "https://example.org/zh/photosynthesis",
        "author": "李明",
    },
    {
        "text": (
            "天空之所以呈现蓝色，是因为瑞利散射。太阳光穿过大气时，波长较短的蓝光比波长较长的红光散射得更强烈。"
            "日落时阳光穿过的大气层更厚，蓝光被散射掉，所以天空呈现红色和橙色。"
        ),
        "title": "为什么天空是蓝色的？",
        "url": "https://example.org/zh/sky",
    },
]

ZH_ANSWER = (
    "叶子看起来是绿色的，因为叶绿素主要吸收红光和蓝紫光，反射绿光[1]。"
    "天空是蓝色的，因为波长较短的蓝光比红光散射得更强烈[2]。"
    "日落时蓝光被散射掉，所以天空呈现红色和橙色[2]。"
)


def english_answer() -> CitedAnswer:
    return parse_answer(EN_ANSWER, number_sources(EN_SOURCES))


def chinese_answer() -> CitedAnswer:
    return parse_answer(ZH_ANSWER, number_sources(ZH_SOURCES))
