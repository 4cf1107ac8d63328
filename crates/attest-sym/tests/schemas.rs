//! Every result type has a JSON Schema (for the MCP layer's output schemas) and
//! serialises to an object.

use attest_sym::*;

fn object_schema<T: schemars::JsonSchema>() -> serde_json::Value {
    let v = serde_json::to_value(schemars::schema_for!(T)).unwrap();
    assert_eq!(v["type"], "object", "{v}");
    v
}

#[test]
fn result_types_have_object_schemas() {
    object_schema::<Simplified>();
    object_schema::<Derivative>();
    object_schema::<Integral>();
    object_schema::<Solution>();
    object_schema::<Evaluated>();
    object_schema::<UnitsResult>();
    object_schema::<DerivationResult>();
    object_schema::<CheckReport>();
    object_schema::<Limits>();
    let v = object_schema::<Verification>();
    assert!(v.to_string().contains("proved_where_defined"), "the verdict enum is in the schema");
}

#[test]
fn errors_serialise_with_their_kind() {
    let e = simplify("x + * 2", &Limits::default()).unwrap_err();
    let j = serde_json::to_value(&e).unwrap();
    assert_eq!(j["kind"], "parse");
    assert_eq!(j["position"], 4);
    let l = serde_json::to_value(simplify("(x+1)^100000", &Limits::default()).unwrap_err()).unwrap();
    assert_eq!(l["kind"], "limit");
}
