//! Timing by GPU timestamps: [`Queries`] owns the query set (a start and an end
//! slot per compute pass), the buffer it resolves into and the one read back.

use super::buffers::buffer;
use super::{Res, Stop};
use crate::gpu::procedure::QUERY_PAIRS;
use crate::js::js_err;
use web_sys::{
    gpu_buffer_usage as usage, GpuBuffer, GpuComputePassTimestampWrites, GpuDevice, GpuQuerySet,
    GpuQuerySetDescriptor, GpuQueryType,
};

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
