// [power] and [supply]: the power meter's keys (metrics/power_meter.h; the model in
// clustersim/power.h and sim/README.md, "Power, energy and carbon").
#include <string>

#include "clustersim/simulator.h"
#include "options/declare.h"

namespace clustersim::options {

void declare_power_keys(KeyRegistry& keys) {
  field<SimOptions>(
      keys, "power.enabled", [](auto& o) -> auto& { return o.power.enabled; })
      .component("power")
      .training_only()
      .doc(
          "Meter power, energy and carbon: the metrics energy_kwh, carbon_kg, grid_kwh, "
          "renewable_share, curtailed_kwh, battery_loss_kwh, unserved_kwh, the job columns "
          "energy_kwh and carbon_kg, and the time-series column power_w "
          "([`sim/README.md`](sim/README.md#power-energy-and-carbon)).");
  custom(keys, "power.gpu_idle_w", KeyType::kTable)
      .component("power")
      .training_only()
      .expected("a table of GPU type = W")
      .default_note("vendor figures")
      .doc(
          "Idle board power per GPU type, W (`{ A100 = 55 }`); a type not given takes the "
          "vendor figure of its model (A100 60, H100 70, V100 40, ...), else 60.");
  custom(keys, "power.gpu_peak_w", KeyType::kTable)
      .component("power")
      .training_only()
      .expected("a table of GPU type = W")
      .default_note("vendor TDP")
      .doc(
          "Peak board power per GPU type, W; a type not given takes its model's TDP (A100 400, "
          "H100 700, V100 300, P100 250, K80 150 per GPU, T4 70, ...), else 400.");
  custom(keys, "power.gpu_cap_w", KeyType::kTable)
      .component("power")
      .training_only()
      .expected("a table of GPU type = W")
      .default_note("none")
      .doc(
          "Board power cap per GPU type, W (`{ A100 = 250 }`; `nvidia-smi -pl`): a GPU that would "
          "draw more draws the cap and runs at speed ((cap - idle) / (draw - idle)) ^ "
          "`gpu_cap_exponent`; a job runs at its slowest GPU's speed "
          "([`sim/README.md`](sim/README.md#power-energy-and-carbon)).");
  custom(keys, "power.gpu_cap_exponent", KeyType::kTable)
      .component("power")
      .training_only()
      .expected("a table of GPU type = exponent")
      .default_note("0.5")
      .doc(
          "The exponent of a capped GPU's speed curve per GPU type: speed = (power above idle "
          "under the cap / without it) ^ exponent (0.5: an assumption checked against published "
          "H100 and V100 capping measurements; 1/3 is DVFS's cubic law, 1 linear).");
  field<SimOptions>(
      keys, "power.intensity", [](auto& o) -> auto& { return o.power.intensity; })
      .range(0.0, 1.0)
      .component("power")
      .training_only()
      .doc(
          "u of a GPU a job holds: its board power is idle + (peak - idle) x u (idle GPUs: "
          "u = 0).");
  field<SimOptions>(
      keys, "power.node_base_w", [](auto& o) -> auto& { return o.power.node_base_w; })
      .range(0.0, 1e7)
      .component("power")
      .training_only()
      .default_note("200 W per GPU")
      .doc("A node's power besides its GPUs (CPUs, memory, fans, NICs), W.");
  field<SimOptions>(
      keys, "power.pue", [](auto& o) -> auto& { return o.power.pue; })
      .range(1.0, 10.0)
      .component("power")
      .training_only()
      .doc("Power usage effectiveness: facility power / IT power.");
  field<SimOptions>(
      keys, "power.idle_off_after_s", [](auto& o) -> auto& { return o.power.idle_off_after_s; })
      .range(0.0, 1e9)
      .component("mechanism idle_power_off")
      .training_only()
      .default_note("nodes stay on")
      .check_target<SimOptions>([](const SimOptions& o) -> std::string {
        // supply.follow's budget counts every node's idle power and holds GPUs on nodes that
        // this would switch off underneath it.
        return o.power.idle_off_after_s && o.supply.follow
                   ? "cannot be combined with supply.follow yet"
                   : "";
      })
      .doc(
          "Switch a node off once it has run nothing for this many seconds: it leaves the "
          "ledger and draws `standby_w_per_node`; when the queue's head waits and the idle nodes "
          "cannot hold it, off nodes of its type are switched on (enough for the head) and boot "
          "for `boot_s` ([`sim/README.md`](sim/README.md#power-energy-and-carbon)).");
  field<SimOptions>(
      keys, "power.boot_s", [](auto& o) -> auto& { return o.power.boot_s; })
      .range(0.0, 1e6)
      .component("mechanism idle_power_off")
      .training_only()
      .doc(
          "With `idle_off_after_s`: how long a node switched on takes to boot, s (it draws its "
          "base and idle power and runs nothing meanwhile).");
  field<SimOptions>(
      keys, "power.standby_w_per_node", [](auto& o) -> auto& { return o.power.standby_w_per_node; })
      .range(0.0, 1e7)
      .component("mechanism idle_power_off")
      .training_only()
      .doc(
          "With `idle_off_after_s`: what a node switched off draws (its BMC and power supplies "
          "on standby), W, PUE applied as to any IT power.");

  field<SimOptions>(
      keys, "supply.carbon_trace", [](auto& o) -> auto& { return o.supply.carbon_trace; })
      .path()
      .component("power")
      .training_only()
      .default_note("none")
      .doc(
          "An Electricity Maps hourly CSV (`Datetime (UTC)`, `Carbon Intensity gCO₂eq/kWh "
          "(direct)`, `(LCA)`): the grid's carbon intensity, hour by hour, repeated past its end.");
  choice<SimOptions>(
      keys, "supply.carbon_column", [](auto& o) -> auto& { return o.supply.carbon_column; },
      std::vector<std::pair<std::string, std::string>>{{"direct", "direct"}, {"lca", "lca"}})
      .component("power")
      .training_only()
      .doc("Which intensity of `carbon_trace`: `direct` (combustion) or `lca` (life cycle).");
  field<SimOptions>(
      keys, "supply.carbon_g_per_kwh", [](auto& o) -> auto& { return o.supply.carbon_g_per_kwh; })
      .range(0.0, 1e4)
      .component("power")
      .training_only()
      .doc("The grid's carbon intensity without a trace, gCO2e/kWh.");
  field<SimOptions>(
      keys, "supply.start_h", [](auto& o) -> auto& { return o.supply.start_h; })
      .range(0.0, 1e7)
      .component("power")
      .training_only()
      .doc(
          "Hours into the traces (from their first row: 1 January, 00:00 UTC) at the run's "
          "time 0.");
  field<SimOptions>(
      keys, "supply.grid_cap_w", [](auto& o) -> auto& { return o.supply.grid_cap_w; })
      .range(0.0, 1e12)
      .component("power")
      .training_only()
      .default_note("unlimited")
      .doc("The most the grid gives, W (0: a site off the grid).");
  field<SimOptions>(
      keys, "supply.solar_trace", [](auto& o) -> auto& { return o.supply.solar_trace; })
      .path()
      .component("power")
      .training_only()
      .default_note("none")
      .doc(
          "An NSRDB PSM4 CSV (`timestamp_local_utc-N`, `ghi_w_m2`, ...): irradiance for on-site "
          "solar, step by step, repeated past its end.");
  field<SimOptions>(
      keys, "supply.solar_capacity_w", [](auto& o) -> auto& { return o.supply.solar_capacity_w; })
      .range(0.0, 1e12)
      .component("power")
      .training_only()
      .doc("Solar output at 1000 W/m2: output = GHI / 1000 x capacity x derate, W.");
  field<SimOptions>(
      keys, "supply.solar_derate", [](auto& o) -> auto& { return o.supply.solar_derate; })
      .range(0.0, 1.0)
      .component("power")
      .training_only()
      .doc("Inverter, wiring, soiling and temperature losses, as a factor.");
  field<SimOptions>(
      keys, "supply.follow", [](auto& o) -> auto& { return o.supply.follow; })
      .component("mechanism supply_following")
      .training_only()
      .doc(
          "Capacity follows supply: at each solar step, GPUs that solar + `grid_cap_w` cannot "
          "power at full use are held out of the ledger, running jobs stopped (checkpointed) "
          "to free them, deferrable and lowest value density first; when supply rises they are "
          "given back and the paused jobs resume.");
  field<SimOptions>(
      keys, "supply.follow_cap_floor", [](auto& o) -> auto& { return o.supply.follow_cap_floor; })
      .range(0.0, 1.0)
      .component("mechanism supply_following")
      .training_only()
      .check([](const OptionValue& value) -> std::string {
        return std::get<double>(value) > 0.0 ? "" : "must be in (0, 1], got 0";
      })
      .doc(
          "With `follow`: when the budget falls, every GPU's power above idle is first capped "
          "down to this fraction (speed: fraction ^ `power.gpu_cap_exponent`), and only below "
          "it are GPUs held and jobs paused; on a rise, held GPUs come back first, then the caps "
          "lift (1: never caps).");
  field<SimOptions>(
      keys, "supply.job_values", [](auto& o) -> auto& { return o.supply.job_values; })
      .path()
      .component("power")
      .training_only()
      .default_note("none")
      .doc(
          "A CSV `job_id,value[,deadline_s][,deferrable]` (deadline from submission, 0: none; "
          "deferrable true/false, default true): the metrics value_obtained and "
          "deadline_misses, and the order `follow` sheds in. A job without a row: value 0.");
  using Defer = SupplyOptions::Defer;
  choice<SimOptions>(
      keys, "supply.defer", [](auto& o) -> auto& { return o.supply.defer; },
      std::vector<std::pair<std::string, Defer>>{
          {"off", Defer::kOff}, {"below", Defer::kBelow}, {"lowest", Defer::kLowest}})
      .component("mechanism carbon_deferral")
      .training_only()
      .doc(
          "Carbon-aware deferral (built-in decider): deferrable jobs wait at arrival, within "
          "their slack (deadline less duration, at most `defer_max_h`), for the first time the "
          "grid's intensity is at most `defer_below_g_per_kwh` (`below`), or for the start with "
          "the least mean intensity over their run (`lowest`; the trace as a perfect forecast).");
  field<SimOptions>(
      keys, "supply.defer_below_g_per_kwh",
      [](auto& o) -> auto& { return o.supply.defer_below_g_per_kwh; })
      .range(0.0, 1e4)
      .component("mechanism carbon_deferral")
      .training_only()
      .doc("`defer = \"below\"`: the intensity a deferred job waits for, gCO2e/kWh.");
  field<SimOptions>(
      keys, "supply.defer_max_h", [](auto& o) -> auto& { return o.supply.defer_max_h; })
      .range(0.0, 1e5)
      .component("mechanism carbon_deferral")
      .training_only()
      .doc("The longest a deferred job waits (a job without a deadline waits at most this), h.");
  field<SimOptions>(
      keys, "supply.battery_kwh", [](auto& o) -> auto& { return o.supply.battery_kwh; })
      .range(0.0, 1e9)
      .component("power")
      .training_only()
      .doc("Battery capacity, kWh (0: none); it charges from solar only.");
  field<SimOptions>(
      keys, "supply.battery_charge_w", [](auto& o) -> auto& { return o.supply.battery_charge_w; })
      .range(0.0, 1e12)
      .component("power")
      .training_only()
      .doc("The most it takes in, W (0: unlimited).");
  field<SimOptions>(
      keys, "supply.battery_discharge_w",
      [](auto& o) -> auto& { return o.supply.battery_discharge_w; })
      .range(0.0, 1e12)
      .component("power")
      .training_only()
      .doc("The most it gives, W (0: unlimited).");
  field<SimOptions>(
      keys, "supply.battery_efficiency",
      [](auto& o) -> auto& { return o.supply.battery_efficiency; })
      .range(0.0, 1.0)
      .component("power")
      .training_only()
      .check([](const OptionValue& value) -> std::string {
        return std::get<double>(value) > 0.0 ? "" : "must be in (0, 1], got 0";
      })
      .doc("Round trip: 1 kWh in stores this many kWh (the loss is taken on charging).");
  field<SimOptions>(
      keys, "supply.battery_initial_soc",
      [](auto& o) -> auto& { return o.supply.battery_initial_soc; })
      .range(0.0, 1.0)
      .component("power")
      .training_only()
      .doc("Its charge at the start, as a fraction of its capacity.");
}

}  // namespace clustersim::options
