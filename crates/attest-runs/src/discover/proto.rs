//! The few protobuf messages the tracker logs need, declared with prost from their
//! published `.proto` files (only the fields read; prost skips the rest): TensorBoard's
//! `Event`, `Summary` and `TensorProto` (tensorflow `event.proto`, `summary.proto`,
//! `tensor.proto`), and W&B's transaction-log `Record` with the members the ledger
//! reads (`history`, `summary`, `config`, `run`, `exit`, `environment`; wandb 0.31's
//! `wandb_internal.proto`). A `oneof` member is declared as an optional field, which
//! is the same on the wire. And TFRecord's masked CRC-32C, over the `crc32c` crate.

/// `tensorflow.Event`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Event {
    /// The global step.
    #[prost(int64, tag = "2")]
    pub step: i64,
    /// The summary of this step (a member of the `what` oneof).
    #[prost(message, optional, tag = "5")]
    pub summary: Option<Summary>,
}

/// `tensorflow.Summary`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Summary {
    /// Its values.
    #[prost(message, repeated, tag = "1")]
    pub value: Vec<SummaryValue>,
}

/// `tensorflow.Summary.Value`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SummaryValue {
    /// The scalar's name (`val/loss`).
    #[prost(string, tag = "1")]
    pub tag: String,
    /// A scalar written the old way (`simple_value`, in the `value` oneof).
    #[prost(float, optional, tag = "2")]
    pub simple_value: Option<f32>,
    /// A scalar written as a tensor (the `value` oneof's `tensor`).
    #[prost(message, optional, tag = "8")]
    pub tensor: Option<TensorProto>,
}

/// `tensorflow.TensorProto`, the scalar parts.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TensorProto {
    /// `DataType`: 1 is `DT_FLOAT`, 2 is `DT_DOUBLE`.
    #[prost(int32, tag = "1")]
    pub dtype: i32,
    /// The values as raw little-endian bytes.
    #[prost(bytes = "vec", tag = "4")]
    pub tensor_content: Vec<u8>,
    /// The values of a float tensor.
    #[prost(float, repeated, tag = "5")]
    pub float_val: Vec<f32>,
    /// The values of a double tensor.
    #[prost(double, repeated, tag = "6")]
    pub double_val: Vec<f64>,
}

impl TensorProto {
    /// The tensor's first value, when it is a float or a double.
    pub fn scalar(&self) -> Option<f64> {
        let raw = &self.tensor_content;
        match self.dtype {
            1 => self.float_val.first().map(|x| f64::from(*x)).or_else(|| {
                let b: [u8; 4] = raw.get(..4)?.try_into().ok()?;
                Some(f64::from(f32::from_le_bytes(b)))
            }),
            2 => self.double_val.first().copied().or_else(|| {
                let b: [u8; 8] = raw.get(..8)?.try_into().ok()?;
                Some(f64::from_le_bytes(b))
            }),
            _ => None,
        }
    }
}

/// W&B's `wandb_internal.Record` (wandb 0.31's `wandb_internal.proto`): the members of
/// its `record_type` oneof the ledger reads.
#[derive(Clone, PartialEq, prost::Message)]
pub struct WandbRecord {
    /// A row of `wandb.log` (`history`).
    #[prost(message, optional, tag = "2")]
    pub history: Option<WandbHistory>,
    /// Changes to the run summary (`summary`).
    #[prost(message, optional, tag = "3")]
    pub summary: Option<WandbItems>,
    /// Changes to the run config (`config`).
    #[prost(message, optional, tag = "5")]
    pub config: Option<WandbItems>,
    /// The run record (`run`).
    #[prost(message, optional, tag = "17")]
    pub run: Option<WandbRun>,
    /// How the run ended (`exit`, a `RunExitRecord`).
    #[prost(message, optional, tag = "18")]
    pub exit: Option<WandbExit>,
    /// Where and what ran (`environment`).
    #[prost(message, optional, tag = "26")]
    pub environment: Option<WandbEnvironment>,
}

/// W&B's `wandb_internal.RunRecord`: its id, display name, initial config and start.
#[derive(Clone, PartialEq, prost::Message)]
pub struct WandbRun {
    /// The run id (`hs128b2r`).
    #[prost(string, tag = "1")]
    pub run_id: String,
    /// The config given to `wandb.init`.
    #[prost(message, optional, tag = "4")]
    pub config: Option<WandbItems>,
    /// The name shown in the W&B interface.
    #[prost(string, tag = "8")]
    pub display_name: String,
    /// When the run started.
    #[prost(message, optional, tag = "17")]
    pub start_time: Option<Timestamp>,
}

/// `ConfigRecord` and `SummaryRecord`, which have the same shape: items set, then
/// items removed.
#[derive(Clone, PartialEq, prost::Message)]
pub struct WandbItems {
    /// Items set.
    #[prost(message, repeated, tag = "1")]
    pub update: Vec<WandbItem>,
    /// Items removed.
    #[prost(message, repeated, tag = "2")]
    pub remove: Vec<WandbItem>,
}

/// `ConfigItem`, `SummaryItem` and `HistoryItem`: a key (or a key path) and its value
/// as JSON text.
#[derive(Clone, PartialEq, prost::Message)]
pub struct WandbItem {
    /// A flat key; empty when `nested_key` is used (wandb-core writes most keys so).
    #[prost(string, tag = "1")]
    pub key: String,
    /// A key path.
    #[prost(string, repeated, tag = "2")]
    pub nested_key: Vec<String>,
    /// The value as JSON (`0.514`, `"tiny-shakespeare"`, `NaN`).
    #[prost(string, tag = "16")]
    pub value_json: String,
    /// `HistoryItem`'s typed integer (a member of its `value` oneof), when it is used
    /// instead of `value_json`.
    #[prost(sint64, optional, tag = "5")]
    pub integer: Option<i64>,
    /// `HistoryItem`'s typed number, likewise.
    #[prost(double, optional, tag = "6")]
    pub number: Option<f64>,
}

impl WandbItem {
    /// The key path: `key`, else `nested_key`.
    pub fn path(&self) -> Vec<&str> {
        if self.key.is_empty() { self.nested_key.iter().map(String::as_str).collect() } else { vec![self.key.as_str()] }
    }

    /// The value: `value_json` parsed (Python's `NaN`/`Infinity` tokens accepted and
    /// marked non-finite), else the typed number.
    pub fn value(&self) -> Option<serde_json::Value> {
        if !self.value_json.is_empty() {
            return super::formats::parse_json(&self.value_json).ok();
        }
        match (self.number, self.integer) {
            (Some(x), _) => serde_json::Number::from_f64(x).map(serde_json::Value::Number),
            (None, Some(i)) => Some(serde_json::Value::from(i)),
            (None, None) => None,
        }
    }
}

/// `HistoryRecord`: one logged row and its step.
#[derive(Clone, PartialEq, prost::Message)]
pub struct WandbHistory {
    /// The row's values (W&B's own `_step`, `_runtime`, `_timestamp` among them).
    #[prost(message, repeated, tag = "1")]
    pub item: Vec<WandbItem>,
    /// The step (`HistoryStep.num`).
    #[prost(message, optional, tag = "2")]
    pub step: Option<WandbStep>,
}

/// `HistoryStep`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct WandbStep {
    /// The step number.
    #[prost(int64, tag = "1")]
    pub num: i64,
}

/// `RunExitRecord`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct WandbExit {
    /// The process's exit code (0 when the script called `finish()`).
    #[prost(int32, tag = "1")]
    pub exit_code: i32,
}

/// `EnvironmentRecord`: the program that ran.
#[derive(Clone, PartialEq, prost::Message)]
pub struct WandbEnvironment {
    /// When it started.
    #[prost(message, optional, tag = "3")]
    pub started_at: Option<Timestamp>,
    /// The program (an absolute path).
    #[prost(string, tag = "6")]
    pub program: String,
    /// The program, relative to the repository or working directory.
    #[prost(string, tag = "7")]
    pub code_path: String,
}

/// `google.protobuf.Timestamp`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Timestamp {
    /// Seconds since the Unix epoch.
    #[prost(int64, tag = "1")]
    pub seconds: i64,
    /// Nanoseconds within the second.
    #[prost(int32, tag = "2")]
    pub nanos: i32,
}

impl Timestamp {
    /// RFC 3339, UTC.
    pub fn rfc3339(&self) -> Option<String> {
        let t = time::OffsetDateTime::from_unix_timestamp_nanos(
            i128::from(self.seconds) * 1_000_000_000 + i128::from(self.nanos),
        )
        .ok()?;
        t.format(&time::format_description::well_known::Rfc3339).ok()
    }
}

/// One field of a protobuf message, borrowed from the bytes it was read from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Field<'a> {
    /// A varint (wire type 0).
    Varint(u64),
    /// Eight little-endian bytes (wire type 1).
    Fixed64([u8; 8]),
    /// A length-delimited payload (wire type 2): a string, bytes, a message or a
    /// packed repeated field.
    Bytes(&'a [u8]),
    /// Four little-endian bytes (wire type 5).
    Fixed32([u8; 4]),
}

/// The fields of one message, in wire order, without copying or allocating (prost's
/// varint decoding; the event files hold millions of scalars, and decoding each into
/// owned messages was most of a TensorBoard scan). Stops at the first malformed field.
pub fn fields(mut b: &[u8]) -> impl Iterator<Item = (u32, Field<'_>)> {
    std::iter::from_fn(move || {
        if b.is_empty() {
            return None;
        }
        let key = prost::encoding::decode_varint(&mut b).ok()?;
        let number = u32::try_from(key >> 3).ok()?;
        let field = match key & 7 {
            0 => Field::Varint(prost::encoding::decode_varint(&mut b).ok()?),
            1 => {
                let (head, rest) = b.split_first_chunk::<8>()?;
                b = rest;
                Field::Fixed64(*head)
            }
            2 => {
                let len = usize::try_from(prost::encoding::decode_varint(&mut b).ok()?).ok()?;
                let (head, rest) = b.split_at_checked(len)?;
                b = rest;
                Field::Bytes(head)
            }
            5 => {
                let (head, rest) = b.split_first_chunk::<4>()?;
                b = rest;
                Field::Fixed32(*head)
            }
            _ => return None,
        };
        Some((number, field))
    })
}

/// The scalars of one serialized `Event`: its step, and each summary value's tag
/// (raw bytes) and number, pushed to `out`. Values that are not scalars (images,
/// histograms, audio, text tensors) are skipped unread.
pub fn event_scalars<'a>(event: &'a [u8], out: &mut Vec<(&'a [u8], f64)>) -> i64 {
    let mut step = 0i64;
    for (number, field) in fields(event) {
        match (number, field) {
            (2, Field::Varint(v)) => step = v as i64,
            (5, Field::Bytes(summary)) => {
                for (n, f) in fields(summary) {
                    if let (1, Field::Bytes(value)) = (n, f)
                        && let Some(s) = value_scalar(value)
                    {
                        out.push(s);
                    }
                }
            }
            _ => {}
        }
    }
    step
}

/// A `Summary.Value`'s tag and scalar: `simple_value`, else a float or double tensor's
/// first value.
fn value_scalar(value: &[u8]) -> Option<(&[u8], f64)> {
    let (mut tag, mut simple, mut tensor) = (None, None, None);
    for (n, f) in fields(value) {
        match (n, f) {
            (1, Field::Bytes(t)) => tag = Some(t),
            (2, Field::Fixed32(b)) => simple = Some(f64::from(f32::from_le_bytes(b))),
            (8, Field::Bytes(t)) => tensor = Some(t),
            _ => {}
        }
    }
    Some((tag?, simple.or_else(|| tensor.and_then(tensor_scalar))?))
}

/// A `TensorProto`'s first value when it is a float (`dtype` 1) or a double (2):
/// from `float_val`/`double_val` (packed or not), else `tensor_content`.
fn tensor_scalar(t: &[u8]) -> Option<f64> {
    let (mut dtype, mut content, mut float, mut double) = (0u64, None, None, None);
    for (n, f) in fields(t) {
        match (n, f) {
            (1, Field::Varint(d)) => dtype = d,
            (4, Field::Bytes(c)) => content = Some(c),
            (5, Field::Fixed32(b)) => float = float.or(Some(f32::from_le_bytes(b))),
            (5, Field::Bytes(p)) => float = float.or_else(|| Some(f32::from_le_bytes(*p.first_chunk::<4>()?))),
            (6, Field::Fixed64(b)) => double = double.or(Some(f64::from_le_bytes(b))),
            (6, Field::Bytes(p)) => double = double.or_else(|| Some(f64::from_le_bytes(*p.first_chunk::<8>()?))),
            _ => {}
        }
    }
    match dtype {
        1 => float.or_else(|| Some(f32::from_le_bytes(*content?.first_chunk::<4>()?))).map(f64::from),
        2 => double.or_else(|| Some(f64::from_le_bytes(*content?.first_chunk::<8>()?))),
        _ => None,
    }
}

/// TFRecord's masked CRC-32C of `data`.
pub fn masked_crc(data: &[u8]) -> u32 {
    crc32c::crc32c(data).rotate_right(15).wrapping_add(0xa282_ead8)
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost::Message as _;

    #[test]
    fn messages_round_trip_and_the_crc_is_castagnoli() {
        let e = Event {
            step: 7,
            summary: Some(Summary {
                value: vec![SummaryValue { tag: "val/loss".into(), simple_value: Some(0.5), tensor: None }],
            }),
        };
        let back = Event::decode(e.encode_to_vec().as_slice()).unwrap();
        assert_eq!(back, e);
        let t = TensorProto { dtype: 2, tensor_content: 0.25f64.to_le_bytes().to_vec(), ..Default::default() };
        assert_eq!(t.scalar(), Some(0.25));
        // The borrowed reader agrees with prost on every way a scalar is written.
        let tensors = [
            t.clone(),
            TensorProto { dtype: 1, float_val: vec![1.5], ..Default::default() },
            TensorProto { dtype: 2, double_val: vec![-2.25, 9.0], ..Default::default() },
            TensorProto { dtype: 1, tensor_content: 3.5f32.to_le_bytes().to_vec(), ..Default::default() },
            TensorProto { dtype: 7, tensor_content: b"text".to_vec(), ..Default::default() },
        ];
        for t in tensors {
            let e = Event {
                step: 42,
                summary: Some(Summary {
                    value: vec![
                        SummaryValue { tag: "a/b".into(), simple_value: None, tensor: Some(t.clone()) },
                        SummaryValue { tag: "s".into(), simple_value: Some(0.5), tensor: None },
                    ],
                }),
            };
            let bytes = e.encode_to_vec();
            let mut got = Vec::new();
            assert_eq!(event_scalars(&bytes, &mut got), 42);
            let mut want: Vec<(&[u8], f64)> = t.scalar().map(|x| (&b"a/b"[..], x)).into_iter().collect();
            want.push((b"s", 0.5));
            assert_eq!(got, want, "{t:?}");
        }
        // A cut message yields what came before the cut, and never panics.
        let bytes = Event { step: 3, summary: None }.encode_to_vec();
        let mut got = Vec::new();
        assert_eq!(event_scalars(&bytes[..1], &mut got), 0);
        assert_eq!(crc32c::crc32c(b"123456789"), 0xE306_9283);
    }
}
