//! Listed schemas use standard JSON Schema only.

mod common;

use attest_core::catalogue::Fault;
use attest_core::{Answer, Catalogue, Hints, Tool, ToolNames, ToolSpec};
use attest_mcp::Served;
use attest_mcp::schema::non_standard_formats;

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
struct Args {
    count: u32,
    limit: Option<u64>,
    offset: i64,
    ratio: f64,
    small: u8,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Detail {
    rows: usize,
    ids: Vec<u32>,
    mean: f32,
}

fn numbers() -> Tool {
    Tool::new(ToolSpec::new("test.numbers", "Numbers", "Takes numbers.", Hints::default()), |_: Args| async {
        Ok::<_, Fault>(Answer::ok("ok", Detail { rows: 1, ids: vec![1], mean: 0.5 }))
    })
}

#[test]
fn every_listed_schema_uses_standard_formats_only() {
    let raw = numbers();
    assert!(!non_standard_formats(&raw.input_schema).is_empty(), "the fixture should carry Rust formats");
    let mut c = Catalogue::new();
    c.push(numbers());
    let served = Served::flat(c, ToolNames::Dotted);
    let (surface, _) = common::served();
    for tool in served.session().list().into_iter().chain(surface.session().list()) {
        let input = non_standard_formats(&tool.input_schema);
        assert!(input.is_empty(), "{}: input formats {input:?}", tool.name);
        let output = tool.output_schema.as_ref().map(|s| non_standard_formats(s)).unwrap_or_default();
        assert!(output.is_empty(), "{}: output formats {output:?}", tool.name);
    }
    let listed = served.session().list();
    let count = &listed[0].input_schema["properties"]["count"];
    assert_eq!(count["minimum"], 0, "{count}");
    assert_eq!(count["maximum"], u32::MAX, "{count}");
}
