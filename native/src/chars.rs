//! Character classes as Python sees them.
//!
//! The segmenter's rules ask Python's questions of a character (`str.isspace`, `str.islower`, `\d` of
//! `re`, ...). Rust's `char` methods answer from Rust's Unicode tables, whose version and definitions
//! differ from the running CPython's (`str.isspace` counts U+001C..U+001F, `re`'s `\d` is
//! `str.isdecimal`, not `str.isdigit`). So the extension asks Python itself, once per distinct
//! character, and remembers the answer in `Table`; ASCII is filled in at start. `RustClasses` answers
//! from Rust's tables: it serves `cargo test` and the fuzz targets, which run without Python.
#![forbid(unsafe_code)]

use std::sync::atomic::{AtomicU8, Ordering};

/// `str.isspace()` (also `re`'s `\s` and what `str.strip()` removes).
pub const SPACE: u8 = 1;
/// `str.islower()` of the one character.
pub const LOWER: u8 = 1 << 1;
/// `str.isupper()` of the one character.
pub const UPPER: u8 = 1 << 2;
/// `str.isalpha()`.
pub const ALPHA: u8 = 1 << 3;
/// `str.isdecimal()` (`re`'s `\d`).
pub const DECIMAL: u8 = 1 << 4;
/// `str.isdigit()`.
pub const DIGIT: u8 = 1 << 5;
/// `str.isalnum()` (`re`'s `\w`, less `_`).
pub const ALNUM: u8 = 1 << 6;
/// Set on every entry of `Table` that has been filled in.
pub const KNOWN: u8 = 1 << 7;

/// The classes of a character, as a set of the flags above.
pub trait Classes {
    fn of(&self, c: char) -> u8;

    fn space(&self, c: char) -> bool {
        self.of(c) & SPACE != 0
    }
    fn lower(&self, c: char) -> bool {
        self.of(c) & LOWER != 0
    }
    fn upper(&self, c: char) -> bool {
        self.of(c) & UPPER != 0
    }
    fn alpha(&self, c: char) -> bool {
        self.of(c) & ALPHA != 0
    }
    fn decimal(&self, c: char) -> bool {
        self.of(c) & DECIMAL != 0
    }
    fn digit(&self, c: char) -> bool {
        self.of(c) & DIGIT != 0
    }
    /// `re`'s `[^\W\d_]`: a letter (a word character that is not a decimal digit nor `_`).
    fn letter(&self, c: char) -> bool {
        self.of(c) & (ALNUM | DECIMAL) == ALNUM
    }
    /// `re`'s `[^\S\n]`: white space other than a newline.
    fn hspace(&self, c: char) -> bool {
        c != '\n' && self.space(c)
    }
}

/// The flags of an ASCII character, exactly as CPython has them.
pub fn ascii_flags(c: u8) -> u8 {
    let mut f = KNOWN;
    // str.isspace: \t \n \v \f \r, the four separators U+001C..U+001F, and the space
    if matches!(c, 0x09..=0x0d | 0x1c..=0x1f | b' ') {
        f |= SPACE;
    }
    if c.is_ascii_lowercase() {
        f |= LOWER | ALPHA | ALNUM;
    }
    if c.is_ascii_uppercase() {
        f |= UPPER | ALPHA | ALNUM;
    }
    if c.is_ascii_digit() {
        f |= DECIMAL | DIGIT | ALNUM;
    }
    f
}

/// Rust's own Unicode tables (for tests and fuzzing without Python): close to CPython's, not equal.
pub struct RustClasses;

impl Classes for RustClasses {
    fn of(&self, c: char) -> u8 {
        if c.is_ascii() {
            return ascii_flags(c as u8);
        }
        let mut f = KNOWN;
        if c.is_whitespace() {
            f |= SPACE;
        }
        if c.is_lowercase() {
            f |= LOWER;
        }
        if c.is_uppercase() {
            f |= UPPER;
        }
        if c.is_alphabetic() {
            f |= ALPHA;
        }
        if c.is_numeric() {
            f |= ALNUM;
            if c.is_ascii_digit() {
                f |= DECIMAL | DIGIT;
            }
        }
        if c.is_alphanumeric() {
            f |= ALNUM;
        }
        f
    }
}

const SIZE: usize = 0x11_0000;

/// Flags by code point, filled in from Python one character at a time (0: not yet known). Entries
/// only ever go from 0 to one fixed value, so relaxed atomics suffice: a reader that sees 0 asks again.
pub struct Table {
    flags: Box<[AtomicU8]>,
}

impl Default for Table {
    fn default() -> Self {
        Self::new()
    }
}

impl Table {
    pub fn new() -> Self {
        let flags: Box<[AtomicU8]> = (0..SIZE).map(|_| AtomicU8::new(0)).collect();
        for c in 0u8..0x80 {
            flags[c as usize].store(ascii_flags(c), Ordering::Relaxed);
        }
        Table { flags }
    }

    /// The flags of `c`, 0 when not yet known.
    pub fn get(&self, c: char) -> u8 {
        self.flags[c as usize].load(Ordering::Relaxed)
    }

    pub fn set(&self, c: char, flags: u8) {
        self.flags[c as usize].store(flags | KNOWN, Ordering::Relaxed);
    }

    /// Fill in every character of `text` not yet known, with `ask` (which asks Python).
    pub fn fill<E>(&self, text: &str, mut ask: impl FnMut(char) -> Result<u8, E>) -> Result<(), E> {
        for c in text.chars() {
            if !c.is_ascii() && self.get(c) == 0 {
                self.set(c, ask(c)?);
            }
        }
        Ok(())
    }
}

impl Classes for Table {
    fn of(&self, c: char) -> u8 {
        // every character of the text is filled in before the segmenter runs; an unknown one would be
        // a bug of the caller: answer with Rust's tables rather than with "no class at all"
        match self.get(c) {
            0 => RustClasses.of(c),
            f => f,
        }
    }
}
