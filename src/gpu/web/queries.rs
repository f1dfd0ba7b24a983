//! Timing by GPU timestamps: [`Queries`] owns the query set (a start and an end
//! slot per compute pass), the buffer it resolves into and the one read back.

use super::buffers::buffer;
use super::measure::Rig;
use super::{Res, Stop};
use crate::js::js_err;
use js_sys::BigUint64Array;
use web_sys::{
    gpu_buffer_usage as usage, GpuBuffer, GpuComputePassTimestampWrites, GpuDevice, GpuQuerySet,
    GpuQuerySetDescriptor, GpuQueryType,
};

/// Query slots per read-back of timestamps.
pub(super) const QUERY_PAIRS: u32 = 256;

/// The timestamp queries of a run: `2 × QUERY_PAIRS` slots, where they are
/// resolved, and where they are read back.
pub(super) struct Queries {
    pub(super) set: GpuQuerySet,
    pub(super) resolve: GpuBuffer,
    pub(super) read: GpuBuffer,
}

impl Queries {
    pub(super) fn new(device: &GpuDevice) -> Res<Queries> {
        let set = device
            .create_query_set(&GpuQuerySetDescriptor::new(
                2 * QUERY_PAIRS,
                GpuQueryType::Timestamp,
            ))
            .map_err(|e| Stop::Error(format!("creating timestamp queries: {}", js_err(e))))?;
        let bytes = f64::from(16 * QUERY_PAIRS);
        Ok(Queries {
            set,
            resolve: buffer(device, bytes, usage::QUERY_RESOLVE | usage::COPY_SRC)?,
            read: buffer(device, bytes, usage::MAP_READ | usage::COPY_DST)?,
        })
    }

    /// Timestamps at the start and end of the pass in slot pair `slot`.
    pub(super) fn writes(&self, slot: u32) -> GpuComputePassTimestampWrites {
        let tw = GpuComputePassTimestampWrites::new(&self.set);
        tw.set_beginning_of_pass_write_index(2 * slot);
        tw.set_end_of_pass_write_index(2 * slot + 1);
        tw
    }
}

impl Rig<'_> {
    /// Sum of the (end − start) spans of the first `pairs` passes, in seconds.
    pub(super) async fn read_timestamps(&self, pairs: u32) -> Res<f64> {
        let Some(Queries {
            set: qs,
            resolve,
            read,
        }) = &self.queries
        else {
            return Err(Stop::Error("no query set".into()));
        };
        let enc = self.device.create_command_encoder();
        enc.resolve_query_set_with_u32(qs, 0, 2 * pairs, resolve, 0);
        enc.copy_buffer_to_buffer_with_u32_and_u32_and_u32(resolve, 0, read, 0, 16 * pairs)
            .map_err(|e| self.fail("copying timestamps", e))?;
        self.queue.submit(&[enc.finish()]);
        let ns = self
            .map_read(read, 16 * pairs, |ab| BigUint64Array::new(ab).to_vec())
            .await?;
        let mut sum = 0.0;
        for p in ns.chunks(2) {
            if let [start, end] = p {
                if end < start {
                    return Err(Stop::Error("GPU timestamps went backwards".into()));
                }
                sum += (end - start) as f64 * 1e-9;
            }
        }
        Ok(sum)
    }
}
