//! The vocabulary of a checkpoint: the element types of its arrays, a section (one named
//! array), where sections are read from, and which sections hold the settings that decide
//! results. What the sections are and how they come back: `state.rs`.
use std::borrow::Cow;

/// Element type of a section (the code is stored in checkpoint files: never renumber).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Elem {
    /// Unsigned 8-bit integers (also text: names, the scenario).
    U8,
    /// Unsigned 16-bit integers.
    U16,
    /// Unsigned 32-bit integers.
    U32,
    /// Unsigned 64-bit integers.
    U64,
    /// IEEE 754 single precision.
    F32,
    /// IEEE 754 double precision.
    F64,
}

impl Elem {
    /// Every element type.
    pub const ALL: [Elem; 6] = [Elem::U8, Elem::U16, Elem::U32, Elem::U64, Elem::F32, Elem::F64];

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            Elem::U8 => 1,
            Elem::U16 => 2,
            Elem::U32 | Elem::F32 => 4,
            Elem::U64 | Elem::F64 => 8,
        }
    }

    /// The code stored in checkpoint files for this type.
    pub fn code(self) -> u32 {
        match self {
            Elem::U8 => 1,
            Elem::U16 => 2,
            Elem::U32 => 3,
            Elem::U64 => 4,
            Elem::F32 => 5,
            Elem::F64 => 6,
        }
    }

    /// The type of a stored code, or None for an unknown one.
    pub fn from_code(c: u32) -> Option<Elem> {
        Elem::ALL.into_iter().find(|e| e.code() == c)
    }

    /// The type's Rust name, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Elem::U8 => "u8",
            Elem::U16 => "u16",
            Elem::U32 => "u32",
            Elem::U64 => "u64",
            Elem::F32 => "f32",
            Elem::F64 => "f64",
        }
    }
}

/// One array of the state: its name, element type and bytes (borrowed from the engine's
/// own buffer where there is one).
#[derive(Debug, Clone)]
pub struct Section<'a> {
    /// The name stored in the file (e.g. `p.x`).
    pub name: &'static str,
    /// The element type of the array.
    pub elem: Elem,
    /// The array's bytes, in the machine's byte order.
    pub bytes: Cow<'a, [u8]>,
}

/// Where [`crate::Simulation::from_sections`] finds the sections (a mapped checkpoint, a test).
pub trait SectionSource {
    /// The bytes of the named section, or None if the file has no such section.
    fn section(&self, name: &str) -> Option<&[u8]>;
}

/// The sections that hold the settings that decide results (time step, domain, method,
/// materials, walls, drives, insertion streams, periodic axes): a checkpoint's header
/// carries a digest of those present. Insertion came with format version 2 (files of
/// version 1 lack it); `periodic` is there only for a periodic cell, `periodic.servo`
/// only for one under a cell servo.
#[cfg(not(feature = "dim3"))]
pub const SETTINGS_SECTIONS: [&str; 16] = [
    "config",
    "materials",
    "material.names",
    "walls",
    "drives",
    "drives.motion",
    "drives.laws",
    "insert.spec",
    "periodic",
    "periodic.servo",
    "pair.table",
    "walls.motion",
    "walls.motion.start",
    "walls.removed",
    "walls.servo.across",
    "walls.tilt",
];
/// The sections that hold the settings that decide results in 3D (no drives there yet;
/// files from before insertion lack `insert.spec`; `periodic` only for a periodic cell,
/// `periodic.servo` for one under a cell servo;
/// `walls.turn` only where a drum turns by a law, `walls.tilt` where a wall tilts).
#[cfg(feature = "dim3")]
pub const SETTINGS_SECTIONS: [&str; 14] = [
    "config",
    "materials",
    "material.names",
    "walls",
    "insert.spec",
    "periodic",
    "periodic.servo",
    "pair.table",
    "walls.motion",
    "walls.motion.start",
    "walls.removed",
    "walls.servo.across",
    "walls.turn",
    "walls.tilt",
];
