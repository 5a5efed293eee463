//! Checks of a checkpoint file beyond its checksums: the bytes no checksum covers.
//!
//! The header CRC covers the header and the section table, each section has its own
//! CRC, but the alignment padding after the table and between sections is covered by
//! none: the writer leaves it zero, so anything else there is damage or a forgery, and
//! the file is refused. Sections may not overlap either (each byte is one section's).
use crate::checkpoint::{Entry, Header};

/// Where the bytes of `file` outside the header, the table and the sections are not zero,
/// or where two sections share bytes: the problem, in words.
pub fn check_padding(file: &[u8], header: &Header, entries: &[Entry]) -> Result<(), String> {
    let mut spans: Vec<(u64, u64, &str)> = entries.iter().map(|e| (e.offset, e.offset + e.len, e.name())).collect();
    spans.sort_by_key(|s| (s.0, s.1));
    let mut at = header.table_end;
    let mut before = "the section table";
    for (start, end, name) in spans {
        if start < at {
            return Err(format!("section {name} overlaps {before} (bytes {start}..{at})"));
        }
        check_zero(file, at, start, before)?;
        if end > at {
            at = end;
            before = name;
        }
    }
    check_zero(file, at, file.len() as u64, before)
}

fn check_zero(file: &[u8], from: u64, to: u64, after: &str) -> Result<(), String> {
    let gap = &file[from as usize..to as usize];
    match gap.iter().position(|&b| b != 0) {
        Some(k) => Err(format!(
            "padding byte {} (after {after}) is {:#04x}, not 0: the file was changed where no checksum covers it",
            from as usize + k,
            gap[k]
        )),
        None => Ok(()),
    }
}
