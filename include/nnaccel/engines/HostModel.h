/// \file
/// The host that runs the layers an engine has no unit for (host fallback) and the link between
/// it and the accelerator. A host layer is never free: it costs the accelerator the time to ship
/// its operands to the host, the host's compute time and the time to ship the results back, and
/// the energy of the host's memory and arithmetic. Engine::simulate charges every host layer of
/// every engine's report with this one model (chargeHostLayers), so no total leaves work out.
///
/// The defaults describe one server-class host on a PCIe 3.0 x16 link; every figure carries its
/// source where it is defined below. docs/HostModel.md gives the model and its choices.
#pragma once

#include "nnaccel/report/Report.h"

#include <cstdint>
#include <string>
#include <vector>

namespace nnaccel::engines {

struct HostModel {
  /// Link bandwidth per direction: PCIe 3.0 x16, 16 lanes x 8 GT/s with 128b/130b encoding
  /// (PCI Express Base Specification, Revision 3.0, PCI-SIG 2010) = 15.754 GB/s.
  double linkBytesPerSecond = 16.0 * 8.0e9 * 128.0 / 130.0 / 8.0;
  /// One transfer's latency (each direction pays it once per layer): a round 1 us, above the
  /// sub-microsecond DMA latencies measured with pcie-bench on Xeon hosts (Neugebauer et al.,
  /// "Understanding PCIe performance for end host networking", SIGCOMM 2018); driver and
  /// synchronisation overheads come on top in practice and are not modelled.
  double linkLatencyNs = 1000.0;
  /// Energy of the link itself per byte: not modelled by default (0); set it to price a
  /// specific PHY. The host-side memory traffic below is charged either way.
  double linkPjPerByte = 0.0;
  /// Host int8 multiply-accumulate rate: one core issuing one AVX-512 VNNI VPDPBUSD per cycle
  /// (64 u8 x s8 multiply-adds into 16 int32 lanes: Intel 64 and IA-32 Architectures Software
  /// Developer's Manual, Vol. 2, VPDPBUSD) at 2.0 GHz = 128 G MAC/s.
  double hostMacsPerSecond = 64.0 * 2.0e9;
  /// Host memory bandwidth: one DDR4-3200 channel, 3200 MT/s x 8 bytes (JEDEC JESD79-4) =
  /// 25.6 GB/s. Operands arrive in and results leave from host memory.
  double hostMemoryBytesPerSecond = 3200.0e6 * 8.0;
  /// Host DRAM energy per byte: 1.3 nJ per 64-bit access, the low end of Horowitz's 45 nm DRAM
  /// figure (1.3-2.6 nJ; M. Horowitz, "Computing's energy problem", ISSCC 2014) / 8 bytes.
  double hostDramPjPerByte = 1300.0 / 8.0;
  /// Host energy per int8 MAC: an 8-bit multiply (0.2 pJ) and an 8-bit add (0.03 pJ) at 45 nm
  /// (Horowitz, ISSCC 2014). The arithmetic alone: a lower bound (no instruction overhead).
  double hostPjPerMac = 0.2 + 0.03;

  bool operator==(const HostModel&) const = default;
};

/// The keys `--host KEY=VALUE` sets, in the order of HostModel's fields: link_bytes_per_second,
/// link_latency_ns, link_pj_per_byte, host_macs_per_second, host_memory_bytes_per_second,
/// host_dram_pj_per_byte, host_pj_per_mac.
std::vector<std::string> hostModelKeys();
/// Sets \p key of \p m from \p value (a finite number; rates > 0, latency and energies >= 0).
/// Throws nnaccel::Error (Usage) naming the key: unknown key (with the list), not a number, or
/// out of range.
void setHostModelKey(HostModel& m, const std::string& key, const std::string& value);

/// What one host layer costs, in accelerator cycles and picojoules.
struct HostCost {
  int64_t linkCycles = 0;    ///< both transfers: 2 x latency + bytes / link bandwidth
  int64_t computeCycles = 0; ///< the host's roofline: max(MACs / MAC rate, bytes / memory BW)
  double linkPj = 0;         ///< the link's own energy
  double hostPj = 0;         ///< host DRAM (the operands written, the results read) + MACs
  int64_t cycles() const { return linkCycles + computeCycles; }
  double energyPj() const { return linkPj + hostPj; }
};

/// The cost of a host layer that moves \p bytes between accelerator and host (operands and
/// results together) and performs \p macs multiply-accumulates (0 for data movement and
/// element-wise work, which the memory term then bounds), on an accelerator clocked at
/// \p clockMhz. Times round up to whole cycles.
HostCost hostCost(const HostModel& host, double clockMhz, int64_t bytes, int64_t macs);

/// Charges every host-fallback layer of \p r (LayerStats::hostFallback) with hostCost of its
/// LayerStats::hostBytes and usefulMacs at r.clockMhz: its cycles and energy grow by the cost,
/// attributed to the `host` cause and energy part, with "host.link" / "host.compute"
/// breakdown entries, and r.total with them (the engine's other total-row figures are kept).
/// \p r must be finalized. A report without host layers is unchanged.
void chargeHostLayers(report::RunReport& r, const HostModel& host);

} // namespace nnaccel::engines
