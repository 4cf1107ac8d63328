//! Tool schemas as clients see them: standard JSON Schema only.
//!
//! schemars describes Rust numbers with `format` values no JSON Schema validator
//! defines (`uint`, `uint32`, `int64`, `double`, ...); strict clients warn about
//! every one. [`standardize`] is the one place they are rewritten, applied to every
//! input and output schema when a tool is listed.

use serde_json::{Map, Value};

/// `format` values defined by JSON Schema draft 2020-12 (and kept as they are).
const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// Keywords whose values are data, not schemas: never rewritten.
const DATA_KEYWORDS: &[&str] = &["default", "const", "enum", "examples", "example"];

/// Bounds a numeric `format` implies: (minimum, maximum).
fn numeric_bounds(format: &str) -> Option<(Option<Value>, Option<Value>)> {
    let b = |lo: i64, hi: i64| Some((Some(Value::from(lo)), Some(Value::from(hi))));
    match format {
        "uint8" => b(0, u8::MAX.into()),
        "uint16" => b(0, u16::MAX.into()),
        "uint32" => b(0, u32::MAX.into()),
        "uint" | "uint64" | "uint128" | "usize" => Some((Some(Value::from(0)), None)),
        "int8" => b(i8::MIN.into(), i8::MAX.into()),
        "int16" => b(i16::MIN.into(), i16::MAX.into()),
        "int32" => b(i32::MIN.into(), i32::MAX.into()),
        "int" | "int64" | "int128" | "isize" | "float" | "double" | "number" | "integer" => Some((None, None)),
        _ => None,
    }
}

/// Rewrite a schema in place so it uses standard JSON Schema only: non-standard
/// `format` values are removed, and the bounds they implied become `minimum` /
/// `maximum` (an unsigned integer gets `minimum: 0`). Bounds already present win.
pub fn standardize(schema: &mut Map<String, Value>) {
    if let Some(Value::String(format)) = schema.get("format")
        && !STANDARD_FORMATS.contains(&format.as_str())
    {
        let bounds = numeric_bounds(format);
        schema.remove("format");
        if let Some((lo, hi)) = bounds {
            if let Some(lo) = lo {
                schema.entry("minimum").or_insert(lo);
            }
            if let Some(hi) = hi {
                schema.entry("maximum").or_insert(hi);
            }
        }
    }
    for (key, value) in schema.iter_mut() {
        if DATA_KEYWORDS.contains(&key.as_str()) {
            continue;
        }
        walk(value);
    }
}

fn walk(value: &mut Value) {
    match value {
        Value::Object(map) => standardize(map),
        Value::Array(items) => items.iter_mut().for_each(walk),
        _ => {}
    }
}

/// Whether a schema (anywhere inside) still uses a non-standard `format`.
pub fn non_standard_formats(schema: &Map<String, Value>) -> Vec<String> {
    let mut found = Vec::new();
    collect(&Value::Object(schema.clone()), &mut found);
    found
}

fn collect(value: &Value, found: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(f)) = map.get("format")
                && !STANDARD_FORMATS.contains(&f.as_str())
            {
                found.push(f.clone());
            }
            for (k, v) in map {
                if !DATA_KEYWORDS.contains(&k.as_str()) {
                    collect(v, found);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| collect(v, found)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn rust_number_formats_become_bounds() {
        let mut s = obj(json!({
            "type": "object",
            "properties": {
                "n": {"type": "integer", "format": "uint"},
                "k": {"type": "integer", "format": "uint32", "minimum": 1},
                "i": {"type": ["integer", "null"], "format": "int64"},
                "x": {"type": "number", "format": "double"},
                "b": {"type": "integer", "format": "uint8"},
                "when": {"type": "string", "format": "date-time"},
                "format": {"type": "string", "default": "uint"},
                "list": {"type": "array", "items": {"type": "integer", "format": "uint64"}}
            },
            "$defs": {"D": {"anyOf": [{"type": "integer", "format": "int32"}, {"type": "null"}]}}
        }));
        standardize(&mut s);
        let p = &s["properties"];
        assert_eq!(p["n"], json!({"type": "integer", "minimum": 0}));
        assert_eq!(p["k"], json!({"type": "integer", "minimum": 1, "maximum": u32::MAX}));
        assert_eq!(p["i"], json!({"type": ["integer", "null"]}));
        assert_eq!(p["x"], json!({"type": "number"}));
        assert_eq!(p["b"], json!({"type": "integer", "minimum": 0, "maximum": 255}));
        assert_eq!(p["when"]["format"], "date-time");
        assert_eq!(p["format"], json!({"type": "string", "default": "uint"}));
        assert_eq!(p["list"]["items"], json!({"type": "integer", "minimum": 0}));
        assert_eq!(s["$defs"]["D"]["anyOf"][0], json!({"type": "integer", "minimum": i32::MIN, "maximum": i32::MAX}));
        assert!(non_standard_formats(&s).is_empty());
    }
}
