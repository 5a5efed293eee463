//! Where an error is: the line, column and key path of a span in the scenario text.
use super::*;

/// 1-based line and column (in characters) of a byte offset.
pub(super) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset.min(text.len())).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

/// The dotted key path (e.g. `particles[1].radius.width`) of the deepest key or value at
/// the start of `span`, found by re-parsing the text into toml's spanned tree. `None` for
/// an empty span (toml uses 0..0 for "the whole document") or unparsable text.
pub(super) fn key_path_at(text: &str, span: &Range<usize>) -> Option<String> {
    if span.is_empty() {
        return None;
    }
    let doc = toml::de::DeTable::parse(text).ok()?;
    path_in_table(doc.get_ref(), span.start)
}

pub(super) fn contains(span: Range<usize>, pos: usize) -> bool {
    span.contains(&pos)
}

// Children are searched before the entry itself because a table's own span is only its
// header (`[[particles]]`), which does not cover its keys.
pub(super) fn path_in_table(table: &toml::de::DeTable<'_>, pos: usize) -> Option<String> {
    for (key, value) in table.iter() {
        if let Some(sub) = path_in_children(value.get_ref(), pos) {
            return Some(format!("{}{sub}", key.get_ref()));
        }
        if contains(key.span(), pos) || contains(value.span(), pos) {
            return Some(key.get_ref().to_string());
        }
    }
    None
}

/// The path below `value` (starting with `.` or `[`), if `pos` lies inside a child.
pub(super) fn path_in_children(value: &toml::de::DeValue<'_>, pos: usize) -> Option<String> {
    match value {
        toml::de::DeValue::Table(t) => path_in_table(t, pos).map(|p| format!(".{p}")),
        toml::de::DeValue::Array(a) => a.iter().enumerate().find_map(|(i, item)| {
            path_in_children(item.get_ref(), pos)
                .or_else(|| contains(item.span(), pos).then(String::new))
                .map(|p| format!("[{i}]{p}"))
        }),
        _ => None,
    }
}
