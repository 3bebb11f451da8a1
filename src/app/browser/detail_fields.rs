//! The detail's metadata fields of the selected model, as the view shows them: parsed once
//! for the entry drawn frame after frame (a frame draws the detail every time, but its entry
//! changes only with the selection).

use crate::api::LoraEntry;
use serde_json::Value;
use std::cell::RefCell;
use std::rc::Rc;

/// Metadata fields as the detail shows them: key, value as one line.
pub type Fields = Rc<[(String, String)]>;

thread_local! {
    /// The metadata fields of the entry whose detail was drawn last: a frame draws the detail
    /// every time, but its entry changes only with the selection, and parsing its metadata was
    /// a tenth of a keystroke's frame.
    static FIELDS: RefCell<Option<(LoraEntry, Fields)>> = const { RefCell::new(None) };
}

/// `entry`'s metadata fields but its source, each value as one line of text (a list's items
/// joined with `, `), in order; parsed once for the entry drawn frame after frame.
pub fn detail_fields(entry: &LoraEntry) -> Fields {
    FIELDS.with_borrow_mut(|last| {
        if let Some((drawn, fields)) = last.as_ref()
            && drawn == entry
        {
            return fields.clone();
        }
        let fields: Fields = entry
            .metadata()
            .into_iter()
            .filter(|(k, _)| k != "source")
            .map(|(k, v)| {
                let value = match v {
                    Value::String(s) => s,
                    Value::Array(items) => items
                        .iter()
                        .map(|i| i.as_str().map_or_else(|| i.to_string(), str::to_string))
                        .collect::<Vec<_>>()
                        .join(", "),
                    other => other.to_string(),
                };
                (k, value)
            })
            .collect();
        *last = Some((entry.clone(), fields.clone()));
        fields
    })
}
