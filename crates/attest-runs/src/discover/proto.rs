//! The few protobuf messages the tracker logs need, declared with prost from their
//! published `.proto` files (only the fields read; prost skips the rest): TensorBoard's
//! `Event`, `Summary` and `TensorProto` (tensorflow `event.proto`, `summary.proto`,
//! `tensor.proto`), and W&B's transaction-log `Record` with its `RunRecord` (wandb
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

/// W&B's `wandb_internal.Record`: only its `run` member (of the `record_type` oneof).
#[derive(Clone, PartialEq, prost::Message)]
pub struct WandbRecord {
    /// The run record.
    #[prost(message, optional, tag = "17")]
    pub run: Option<WandbRun>,
}

/// W&B's `wandb_internal.RunRecord`: only its display name.
#[derive(Clone, PartialEq, prost::Message)]
pub struct WandbRun {
    /// The name shown in the W&B interface.
    #[prost(string, tag = "8")]
    pub display_name: String,
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
        assert_eq!(crc32c::crc32c(b"123456789"), 0xE306_9283);
    }
}
