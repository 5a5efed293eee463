//! Checkpoint files: the format, and reading them back through a memory map.
//!
//! One file per checkpoint, the engine's buffers one after another (the checkpoint is the
//! buffers: nothing is converted on the way out or back in):
//!
//! ```text
//! 0      Header (256 bytes): magic, format version, byte-order mark, dimension, particle
//!        count, step, simulated time, scenario hash, settings digest, file length, CRC
//! 256    section table: one 64-byte Entry per section (name, element type, CRC-32,
//!        offset, length in bytes)
//! ...    the sections, each starting at a multiple of 64 bytes (so that a mapped section
//!        casts to &[f64] with bytemuck, no copy needed to read it)
//! ```
//!
//! Everything is written in the machine's byte order; the byte-order mark tells a reader
//! on the other kind of machine to refuse the file instead of reading garbage. Every
//! section has its own CRC-32 and the header and table have one, so a flipped byte is
//! found and named. Files are written by [`crate::checkpointer::Checkpointer`].
use std::fs::File;
use std::path::{Path, PathBuf};

use bytemuck::{Pod, Zeroable};
use memmap2::Mmap;
use talus_engine::{Elem, Section, SectionSource, SETTINGS_SECTIONS};
use talus_kernels::math::DIM;

use crate::{IoError, Result};

/// First 8 bytes of every checkpoint file.
pub const MAGIC: [u8; 8] = *b"TALUSCKP";
/// Format version this talus writes. Version 2 added the sections of drive start times
/// (`drives.motion`) and insertion streams (`insert.spec`, `insert.state`): a talus that
/// reads only version 1 refuses these files instead of dropping what they hold. Version 3
/// keeps a 3D table's far pairs out of its slots (`contact.far`): a talus before it would
/// read the slots as every candidate pair and never find the far ones again. Version 4
/// keeps its apart pairs (those that may touch but do not) out of the slots too
/// (`contact.apart`), which a talus before it would never test again. Version 5 keeps
/// the sweep's box ends without their values (`broad.order.*`, 4 bytes an end, where
/// `broad.ends.*` held 8-byte keys: files of version 4 and before are read as they are).
pub const VERSION: u32 = 5;
/// Oldest format version this talus reads (version 1 files lack those sections: their
/// drives start at once, and they insert nothing).
pub const MIN_VERSION: u32 = 1;
/// Written as a native u32: reads back as 0x0403_0201 on a machine of the other order.
pub const BYTE_ORDER_MARK: u32 = 0x0102_0304;
/// Size of the [`Header`], bytes.
pub const HEADER_BYTES: usize = 256;
/// Size of one section table [`Entry`], bytes.
pub const ENTRY_BYTES: usize = 64;
/// Alignment of every section in the file.
pub const ALIGN: usize = 64;
/// Longest section name.
pub const NAME_BYTES: usize = 32;
/// File name extension of complete checkpoints.
pub const EXTENSION: &str = "talus";

/// The first 256 bytes of a checkpoint file, in the machine's byte order.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
pub struct Header {
    /// [`MAGIC`].
    pub magic: [u8; 8],
    /// Format version of the file ([`VERSION`] when this talus wrote it).
    pub version: u32,
    /// [`BYTE_ORDER_MARK`] as the writing machine stored it.
    pub byte_order: u32,
    /// 2 or 3: the build of the engine whose state this is (2 in every file before 3D).
    pub dimension: u32,
    /// Number of sections (entries in the table).
    pub sections: u32,
    /// Header and section table.
    pub table_end: u64,
    /// Length of the whole file, bytes.
    pub file_bytes: u64,
    /// Number of particles in the state.
    pub particles: u64,
    /// Step of the state.
    pub step: u64,
    /// Simulated time of the state, s.
    pub time: f64,
    /// FNV-1a of the scenario text the run was built from.
    pub scenario_hash: u64,
    /// FNV-1a of the settings sections (time step, domain, method, materials, walls,
    /// drives): the engine settings that decide the results.
    pub settings_hash: u64,
    /// Zero; room for later fields.
    pub reserved: [u64; 21],
    /// CRC-32 of the header (this field zero) and the section table.
    pub header_crc: u32,
    /// Zero; pads the header to 256 bytes.
    pub pad: u32,
}

/// One section in the section table.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
pub struct Entry {
    /// Section name, UTF-8, padded with zeros.
    pub name: [u8; NAME_BYTES],
    /// Element type of the section ([`Elem`] code).
    pub elem: u32,
    /// CRC-32 of the section's bytes.
    pub crc: u32,
    /// Start of the section in the file, bytes (a multiple of [`ALIGN`]).
    pub offset: u64,
    /// Length of the section, bytes.
    pub len: u64,
    /// Zero; room for later fields.
    pub reserved: u64,
}

const _: () = assert!(std::mem::size_of::<Header>() == HEADER_BYTES);
const _: () = assert!(std::mem::size_of::<Entry>() == ENTRY_BYTES);

impl Entry {
    /// The section name (`<not UTF-8>` where it is not).
    pub fn name(&self) -> &str {
        let end = self.name.iter().position(|&b| b == 0).unwrap_or(NAME_BYTES);
        std::str::from_utf8(&self.name[..end]).unwrap_or("<not UTF-8>")
    }
}

/// 64-bit FNV-1a (scenario texts, settings digests: identification, not integrity).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The digest of the settings sections present (a file of an older version lacks the
/// newer ones: its digest is what that version computed).
pub fn settings_hash<'a>(named: impl Fn(&str) -> Option<&'a [u8]>) -> u64 {
    let mut all = Vec::new();
    for name in SETTINGS_SECTIONS {
        if let Some(bytes) = named(name) {
            all.extend_from_slice(name.as_bytes());
            all.extend_from_slice(bytes);
        }
    }
    fnv1a(&all)
}

/// Why a file of another dimension is refused (every version records it; all files
/// before the 3D engine's are 2D).
pub fn dimension_refused(dimension: u32) -> String {
    let what = |d: u32| match d {
        2 => Some("2D checkpoint (discs and polygons)"),
        3 => Some("3D checkpoint (spheres)"),
        _ => None,
    };
    let here = format!("this is the {DIM}D engine");
    match what(dimension) {
        Some(kind) => format!("a {kind}; {here}"),
        None => format!("dimension {dimension} (2 or 3: the header is damaged); {here}"),
    }
}

fn align(x: usize) -> usize {
    x.div_ceil(ALIGN) * ALIGN
}

/// Where each section goes in a file: (offset, length) per section, and the file length.
pub fn layout(sections: &[Section<'_>]) -> (Vec<(usize, usize)>, usize) {
    let mut at = align(HEADER_BYTES + ENTRY_BYTES * sections.len());
    let mut places = Vec::with_capacity(sections.len());
    for s in sections {
        places.push((at, s.bytes.len()));
        at = align(at + s.bytes.len());
    }
    (places, at)
}

/// The header and the section table of `sections` laid out by `layout`, with zero CRCs
/// (the writer fills them in with [`seal`] once the sections are in place).
pub fn header_and_table(
    sections: &[Section<'_>],
    places: &[(usize, usize)],
    file_bytes: usize,
    particles: u64,
    step: u64,
    time: f64,
    scenario_hash: u64,
) -> Result<Vec<u8>, String> {
    let settings = settings_hash(|n| sections.iter().find(|s| s.name == n).map(|s| &*s.bytes));
    let header = Header {
        magic: MAGIC,
        version: VERSION,
        byte_order: BYTE_ORDER_MARK,
        dimension: DIM as u32,
        sections: sections.len() as u32,
        table_end: (HEADER_BYTES + ENTRY_BYTES * sections.len()) as u64,
        file_bytes: file_bytes as u64,
        particles,
        step,
        time,
        scenario_hash,
        settings_hash: settings,
        ..Zeroable::zeroed()
    };
    let mut out = bytemuck::bytes_of(&header).to_vec();
    for (s, &(offset, len)) in sections.iter().zip(places) {
        if s.name.len() > NAME_BYTES {
            return Err(format!("section name {} is longer than {NAME_BYTES} bytes", s.name));
        }
        let mut e = Entry {
            elem: s.elem.code(),
            offset: offset as u64,
            len: len as u64,
            ..Zeroable::zeroed()
        };
        e.name[..s.name.len()].copy_from_slice(s.name.as_bytes());
        out.extend_from_slice(bytemuck::bytes_of(&e));
    }
    Ok(out)
}

/// Fill in the CRCs of a file image whose header, table and sections are in place. An image
/// whose table does not fit in it is an error (nothing is changed).
pub fn seal(file: &mut [u8]) -> Result<(), String> {
    if file.len() < HEADER_BYTES {
        return Err(format!("{} bytes, shorter than the header", file.len()));
    }
    let n = bytemuck::pod_read_unaligned::<Header>(&file[..HEADER_BYTES]).sections as usize;
    let table_end = n
        .checked_mul(ENTRY_BYTES)
        .and_then(|t| t.checked_add(HEADER_BYTES))
        .filter(|&t| t <= file.len())
        .ok_or_else(|| format!("a table of {n} sections does not fit in {} bytes", file.len()))?;
    let entry = |file: &[u8], k: usize| -> Entry {
        bytemuck::pod_read_unaligned(&file[HEADER_BYTES + k * ENTRY_BYTES..][..ENTRY_BYTES])
    };
    for k in 0..n {
        let e = entry(file, k);
        if e.offset.checked_add(e.len).is_none_or(|end| end > file.len() as u64) {
            return Err(format!("section {} lies outside the image", e.name()));
        }
    }
    for k in 0..n {
        let at = HEADER_BYTES + k * ENTRY_BYTES;
        let mut e = entry(file, k);
        e.crc = crc32fast::hash(&file[e.offset as usize..(e.offset + e.len) as usize]);
        file[at..at + ENTRY_BYTES].copy_from_slice(bytemuck::bytes_of(&e));
    }
    let crc = header_crc(&file[..table_end]);
    let mut h: Header = bytemuck::pod_read_unaligned(&file[..HEADER_BYTES]);
    h.header_crc = crc;
    file[..HEADER_BYTES].copy_from_slice(bytemuck::bytes_of(&h));
    Ok(())
}

/// CRC-32 of header (with its CRC field taken as zero) and table.
fn header_crc(header_and_table: &[u8]) -> u32 {
    let mut h: Header = bytemuck::pod_read_unaligned(&header_and_table[..HEADER_BYTES]);
    h.header_crc = 0;
    let mut c = crc32fast::Hasher::new();
    c.update(bytemuck::bytes_of(&h));
    c.update(&header_and_table[HEADER_BYTES..]);
    c.finalize()
}

/// A checkpoint file, mapped, its header and table checked.
pub struct Checkpoint {
    /// The file.
    pub path: PathBuf,
    /// Its header.
    pub header: Header,
    /// Its section table, in file order.
    pub entries: Vec<Entry>,
    map: Mmap,
}

impl std::fmt::Debug for Checkpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Checkpoint")
            .field("path", &self.path)
            .field("header", &self.header)
            .finish()
    }
}

impl Checkpoint {
    /// Map a checkpoint, check its header and table, and verify every section's CRC.
    pub fn open(path: &Path) -> Result<Checkpoint> {
        let c = Checkpoint::open_unverified(path)?;
        if let Some((e, _)) = c.verify().into_iter().find(|(_, ok)| !ok) {
            return Err(c.error(
                Some(e.name()),
                "checksum mismatch: the section was changed or damaged".into(),
            ));
        }
        c.check_padding()?;
        Ok(c)
    }

    /// The bytes no checksum covers (alignment padding) are zero and no two sections
    /// share bytes (see [`crate::checkpoint_validate`]).
    pub fn check_padding(&self) -> Result<()> {
        crate::checkpoint_validate::check_padding(&self.map, &self.header, &self.entries)
            .map_err(|m| self.error(None, m))
    }

    /// Map a checkpoint and check its header and table (not the sections' CRCs: see
    /// [`Checkpoint::verify`]).
    pub fn open_unverified(path: &Path) -> Result<Checkpoint> {
        let err = |msg: String| IoError::Checkpoint {
            path: path.to_path_buf(),
            section: None,
            msg,
        };
        let file = File::open(path).map_err(|e| IoError::os(path, e))?;
        let len = file.metadata().map_err(|e| IoError::os(path, e))?.len() as usize;
        if len < HEADER_BYTES {
            return Err(err(format!(
                "truncated: {len} bytes, shorter than the {HEADER_BYTES}-byte header"
            )));
        }
        // SAFETY: the map is read-only and private to this process; if another process
        // truncated the file while it is mapped, reads past the new end would fault. talus
        // never truncates a complete checkpoint (new ones are written under a temporary
        // name and renamed over), and the length is checked against the header below.
        let map = unsafe { Mmap::map(&file) }.map_err(|e| IoError::os(path, e))?;
        let header: Header = bytemuck::pod_read_unaligned(&map[..HEADER_BYTES]);
        if header.magic != MAGIC {
            return Err(err(format!(
                "not a talus checkpoint (magic {:?}, expected {:?})",
                String::from_utf8_lossy(&header.magic),
                String::from_utf8_lossy(&MAGIC)
            )));
        }
        if header.byte_order != BYTE_ORDER_MARK {
            let here = if cfg!(target_endian = "little") {
                "little"
            } else {
                "big"
            };
            return Err(err(if header.byte_order == BYTE_ORDER_MARK.swap_bytes() {
                format!("written on a machine of the other byte order; this machine is {here}-endian")
            } else {
                format!("byte-order mark {:#010x} is damaged", header.byte_order)
            }));
        }
        if !(MIN_VERSION..=VERSION).contains(&header.version) {
            return Err(err(format!(
                "format version {}, this talus reads versions {MIN_VERSION} to {VERSION}",
                header.version
            )));
        }
        let n = header.sections as usize;
        let table_end = HEADER_BYTES + n * ENTRY_BYTES;
        if n > 10_000 || table_end > len {
            return Err(err(format!(
                "truncated or damaged: {n} sections announced, file has {len} bytes"
            )));
        }
        if header_crc(&map[..table_end]) != header.header_crc {
            return Err(err("checksum mismatch in the header or section table".into()));
        }
        if header.file_bytes as usize != len {
            return Err(err(format!(
                "truncated: {len} bytes, the header says {} (the file was cut short or appended to)",
                header.file_bytes
            )));
        }
        if header.dimension != DIM as u32 {
            return Err(err(dimension_refused(header.dimension)));
        }
        let entries: Vec<Entry> = (0..n)
            .map(|k| bytemuck::pod_read_unaligned(&map[HEADER_BYTES + k * ENTRY_BYTES..][..ENTRY_BYTES]))
            .collect();
        for e in &entries {
            let bad = |msg: String| IoError::Checkpoint {
                path: path.to_path_buf(),
                section: Some(e.name().to_string()),
                msg,
            };
            let elem = Elem::from_code(e.elem).ok_or_else(|| bad(format!("unknown element type {}", e.elem)))?;
            let end = e.offset.checked_add(e.len);
            if e.offset < table_end as u64 || end.is_none_or(|end| end > len as u64) {
                return Err(bad(format!(
                    "bytes {}..{} lie outside the file ({len} bytes)",
                    e.offset,
                    e.offset.saturating_add(e.len)
                )));
            }
            if !(e.offset as usize).is_multiple_of(ALIGN) || !(e.len as usize).is_multiple_of(elem.size()) {
                return Err(bad(format!(
                    "misplaced: offset {} or length {} does not fit {} elements",
                    e.offset,
                    e.len,
                    elem.name()
                )));
            }
        }
        Ok(Checkpoint {
            path: path.to_path_buf(),
            header,
            entries,
            map,
        })
    }

    /// Each section with whether its CRC matches.
    pub fn verify(&self) -> Vec<(Entry, bool)> {
        self.entries
            .iter()
            .map(|e| (*e, crc32fast::hash(self.bytes(e)) == e.crc))
            .collect()
    }

    fn bytes(&self, e: &Entry) -> &[u8] {
        &self.map[e.offset as usize..(e.offset + e.len) as usize]
    }

    /// An [`IoError::Checkpoint`] of this file, in `section` if one.
    pub fn error(&self, section: Option<&str>, msg: String) -> IoError {
        IoError::Checkpoint {
            path: self.path.clone(),
            section: section.map(str::to_string),
            msg,
        }
    }

    /// The named section's text (scenario, run settings), if it has one.
    pub fn text(&self, name: &str) -> Option<&str> {
        self.section(name).and_then(|b| std::str::from_utf8(b).ok())
    }

    /// The simulation saved in this checkpoint.
    pub fn simulation(&self) -> Result<talus_engine::Simulation> {
        let digest = settings_hash(|n| self.section(n));
        if digest != self.header.settings_hash {
            return Err(self.error(
                None,
                format!(
                    "the settings sections ({}) do not match the header's digest",
                    SETTINGS_SECTIONS.join(", ")
                ),
            ));
        }
        let sim = talus_engine::Simulation::from_sections(self).map_err(|e| match e {
            talus_engine::EngineError::State { section, msg } => self.error(Some(&section), msg),
            other => self.error(None, other.to_string()),
        })?;
        if sim.len() as u64 != self.header.particles
            || sim.step != self.header.step
            || sim.time.to_bits() != self.header.time.to_bits()
        {
            return Err(self.error(
                Some("scalars"),
                format!(
                    "{} particles at step {} (time {}), the header says {} at step {} (time {})",
                    sim.len(),
                    sim.step,
                    sim.time,
                    self.header.particles,
                    self.header.step,
                    self.header.time
                ),
            ));
        }
        Ok(sim)
    }
}

impl SectionSource for Checkpoint {
    fn section(&self, name: &str) -> Option<&[u8]> {
        self.entries.iter().find(|e| e.name() == name).map(|e| self.bytes(e))
    }
}

/// The dimension (2 or 3) a checkpoint file's header records, read alone so that the
/// program can pick the build that opens it; None where the file is not a readable
/// checkpoint of this byte order (opening it then says why).
pub fn file_dimension(path: &Path) -> Option<u32> {
    use std::io::Read;
    let mut bytes = [0u8; HEADER_BYTES];
    File::open(path).ok()?.read_exact(&mut bytes).ok()?;
    let header: Header = bytemuck::pod_read_unaligned(&bytes);
    (header.magic == MAGIC && header.byte_order == BYTE_ORDER_MARK && matches!(header.dimension, 2 | 3))
        .then_some(header.dimension)
}

/// The complete checkpoints in `dir` with this prefix, oldest first (by step: the names
/// carry it zero-padded).
pub fn list(dir: &Path, prefix: &str) -> Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    let rd = std::fs::read_dir(dir).map_err(|e| IoError::os(dir, e))?;
    for entry in rd {
        let entry = entry.map_err(|e| IoError::os(dir, e))?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let step = name
            .strip_prefix(prefix)
            .and_then(|r| r.strip_prefix('-'))
            .and_then(|r| r.strip_suffix(&format!(".{EXTENSION}")));
        if step.is_some_and(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())) {
            found.push(entry.path());
        }
    }
    found.sort();
    Ok(found)
}

/// File name of the checkpoint of `step`.
pub fn file_name(prefix: &str, step: u64) -> String {
    format!("{prefix}-{step:012}.{EXTENSION}")
}

#[cfg(test)]
#[path = "checkpoint_tests.rs"]
mod tests;
