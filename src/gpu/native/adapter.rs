//! `brrr-lab`'s adapter: the high-performance wgpu adapter of this machine, its
//! description and limits as the lab's types, and today's date in ISO 8601 (what
//! the page gets from the browser).

use crate::gpu::plan::Limits;
use crate::gpu::results::AdapterInfo;
use std::time::{SystemTime, UNIX_EPOCH};

/// A vendor's name from its PCI (or Khronos) id.
pub fn vendor_name(id: u32) -> &'static str {
    match id {
        0x10de => "NVIDIA",
        0x1002 | 0x1022 => "AMD",
        0x8086 => "Intel",
        0x106b => "Apple",
        0x13b5 => "ARM",
        0x5143 => "Qualcomm",
        0x1010 => "Imagination",
        0x10005 => "Mesa",
        _ => "",
    }
}

/// A wgpu adapter as the lab's [`AdapterInfo`] (the fields a browser fills):
/// vendor by name, the device's name, and the driver as the description.
pub fn info_of(a: &wgpu::Adapter) -> AdapterInfo {
    let i = a.get_info();
    let l = limits_of(a);
    let f = a.features();
    let driver = [i.driver.as_str(), i.driver_info.as_str()]
        .iter()
        .filter(|s| !s.is_empty())
        .copied()
        .collect::<Vec<_>>()
        .join(" ");
    AdapterInfo {
        vendor: vendor_name(i.vendor).to_string(),
        architecture: String::new(),
        description: format!("{driver} ({:?})", i.backend),
        device: i.name,
        fallback: i.device_type == wgpu::DeviceType::Cpu,
        timestamps: f.contains(wgpu::Features::TIMESTAMP_QUERY),
        f16: f.contains(wgpu::Features::SHADER_F16),
        max_storage_binding: l.max_storage_binding,
        max_buffer: l.max_buffer,
        max_workgroups_per_dim: l.max_workgroups_per_dim,
        max_invocations: l.max_invocations,
    }
}

pub(super) fn limits_of(a: &wgpu::Adapter) -> Limits {
    let l = a.limits();
    Limits {
        max_storage_binding: l.max_storage_buffer_binding_size as f64,
        max_buffer: l.max_buffer_size as f64,
        max_workgroups_per_dim: l.max_compute_workgroups_per_dimension,
        max_invocations: l.max_compute_invocations_per_workgroup,
        max_workgroup_size_x: l.max_compute_workgroup_size_x,
    }
}

/// The high-performance adapter of this machine, or why there is none.
pub fn adapter() -> Result<wgpu::Adapter, String> {
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle());
    pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
        power_preference: wgpu::PowerPreference::HighPerformance,
        force_fallback_adapter: false,
        compatible_surface: None,
        ..wgpu::RequestAdapterOptions::default()
    }))
    .map_err(|e| {
        format!(
            "no GPU adapter found ({e}): wgpu found no Vulkan, Metal or DX12 device; on Linux \
             install a Vulkan driver (Debian: mesa-vulkan-drivers)"
        )
    })
}

/// Today's date and time in ISO 8601 (UTC), like the page's `Date.toISOString()`.
pub fn iso_now() -> String {
    let d = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    iso_date(d.as_secs(), d.subsec_millis())
}

/// `secs` since 1970 as ISO 8601 (the civil-from-days algorithm).
pub fn iso_date(secs: u64, millis: u32) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_iso_8601() {
        assert_eq!(iso_date(0, 0), "1970-01-01T00:00:00.000Z");
        // 2026-11-23T06:27:06Z
        assert_eq!(iso_date(1_795_415_226, 42), "2026-11-23T06:27:06.042Z");
        assert_eq!(iso_date(951_782_400, 0), "2000-02-29T00:00:00.000Z");
    }

    #[test]
    fn vendors_by_id() {
        assert_eq!(vendor_name(0x10de), "NVIDIA");
        assert_eq!(vendor_name(0x10005), "Mesa");
        assert_eq!(vendor_name(7), "");
    }
}
