//! `abi inspect`: every export with its signature as Python reads it, its docs, its IREE
//! record and raw signature; `--json` prints the model.

use serde_json::{json, Value};

use crate::read::Listing;

/// The human-readable report.
pub fn text(listing: &Listing) -> String {
    let mut out = format!(
        "{}: {} export(s); metadata {}\n",
        listing.path.display(),
        listing.exports.len(),
        listing.source.describe()
    );
    for e in &listing.exports {
        out.push('\n');
        match &e.metadata {
            Some(m) => out.push_str(&m.python_signature(&e.name)),
            None => out.push_str(&format!("{}(...)  (no metadata published)", e.name)),
        }
        out.push('\n');
        if let Some(doc) = &e.doc {
            for line in doc.lines() {
                out.push_str(&format!("    {line}\n").replace("    \n", "\n"));
            }
        }
        if let Some(m) = &e.metadata {
            if let Some(r) = &m.iree_abi {
                out.push_str(&format!("    iree.abi: {}\n", r.to_json()));
            }
            if let Some(s) = &m.signature {
                out.push_str(&format!("    signature: {s}\n"));
            }
        }
    }
    out
}

/// The `--json` report: per export, the metadata model as published (re-printed by the
/// model) with its Python signature and docs.
pub fn json(listing: &Listing) -> Value {
    let exports: serde_json::Map<String, Value> = listing
        .exports
        .iter()
        .map(|e| {
            let metadata = e
                .metadata
                .as_ref()
                .and_then(|m| serde_json::from_str::<Value>(&m.to_json()).ok())
                .unwrap_or(Value::Null);
            let python = e.metadata.as_ref().map(|m| m.python_signature(&e.name));
            (e.name.clone(), json!({ "python": python, "doc": e.doc, "metadata": metadata }))
        })
        .collect();
    json!({
        "library": listing.path.display().to_string(),
        "source": listing.source.key(),
        "format": abi_shared::METADATA_VERSION,
        "exports": exports,
    })
}
