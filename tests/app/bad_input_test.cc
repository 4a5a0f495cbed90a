// The bad-input suite (issue 13): every reader and every config table, through the real
// `clustersim run` binary. Each case writes its input files into an empty folder, runs
// `clustersim run` with --jobs-out and --timeseries-out, and asserts
//   - exit status 2;
//   - the first stderr line is exactly "clustersim: error: FILE:LINE: field 'F': ..." for the
//     file, line and field the case names (":LINE" is absent for line 0, "field 'F': " for no
//     field), and contains the case's message text;
//   - stderr is short (echoed input is cut to an excerpt);
//   - the folder holds exactly the input files afterwards: no output, no temporary.
// Grid files (the sweep's own input) have their suite in tests/sweep/bad_input_test.sh.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

struct Case {
  std::string name;
  std::map<std::string, std::string> files;  // relative path -> content; "dir/" makes a folder
  std::string file;                          // expected FILE of the message
  std::size_t line = 0;                      // expected LINE (0: none)
  std::string field;                         // expected field ("" = none)
  std::string message;                       // text the message must contain
  std::string arguments = "run cfg.toml";    // --jobs-out/--timeseries-out are added unless set
};

// ---- inputs shared by the cases -------------------------------------------------------------

// Lines: 1 [cluster], 2 nodes, 3 gpus_per_node, 5 [workload], 6 trace, 7 format,
// 8.. `workload_extra`, a blank line, [scheduler], policy, then `tail`.
std::string config(const std::string& trace = "t.csv", const std::string& format = "csv",
                   const std::string& workload_extra = "", const std::string& tail = "") {
  return "[cluster]\nnodes = 2\ngpus_per_node = 8\n\n[workload]\ntrace = \"" + trace +
         "\"\nformat = \"" + format + "\"\n" + workload_extra +
         "\n[scheduler]\npolicy = \"fifo\"\n" + tail;
}
// A config whose line 9 is [scheduler], 10 policy, 11.. `tail`.
std::string config_with_tail(const std::string& tail) { return config("t.csv", "csv", "", tail); }

const std::string kCsvHeader = "job_id,submit_time,num_gpus,duration\n";
const std::string kCsvRows = "a,0,4,100\nb,10,8,50\n";

std::string big(std::size_t size, char c = 'x') { return std::string(size, c); }

Case csv_case(std::string name, std::string trace, std::size_t line, std::string field,
              std::string message) {
  return {std::move(name),  {{"cfg.toml", config()}, {"t.csv", std::move(trace)}},
          "t.csv",          line,
          std::move(field), std::move(message)};
}

// Native CSV traces.
std::vector<Case> csv_cases() {
  const std::string h = kCsvHeader;
  return {
      csv_case("CsvUnknownColumn", "job_id,submit_time,num_gpus,duration,colour\n" + kCsvRows, 1,
               "colour", "unknown column"),
      csv_case("CsvHugeHeaderCell", "job_id,submit_time,num_gpus,duration," + big(5000) + "\n", 1,
               big(60) + "...", "unknown column"),
      csv_case("CsvDuplicateColumn", "job_id,submit_time,num_gpus,duration,duration\n", 1,
               "duration", "twice"),
      csv_case("CsvMissingRequiredColumn", "job_id,submit_time,num_gpus\n", 1, "duration",
               "required column missing"),
      csv_case("CsvEmptyColumnName", "job_id,,submit_time,num_gpus,duration\n", 1, "",
               "empty column name"),
      csv_case("CsvEmptyFile", "", 0, "", "no header row"),
      csv_case("CsvHeaderOnly", h, 0, "", "no jobs"),
      csv_case("CsvRowMissingField", h + "a,0,4\n", 2, "duration", "missing value"),
      csv_case("CsvRowExtraField", h + "a,0,4,100,9\n", 2, "", "row has 5 fields"),
      csv_case("CsvSubmitNotANumber", h + "a,x,4,100\n", 2, "submit_time", "not a finite number"),
      csv_case("CsvSubmitNegative", h + "a,-5,4,100\n", 2, "submit_time", "negative"),
      csv_case("CsvSubmitInfinite", h + "a,inf,4,100\n", 2, "submit_time", "not a finite number"),
      csv_case("CsvDurationZero", h + "a,0,4,0\n", 2, "duration", "must be > 0"),
      csv_case("CsvDurationNan", h + "a,0,4,nan\n", 2, "duration", "not a finite number"),
      csv_case("CsvGpusZero", h + "a,0,0,100\n", 2, "num_gpus", "needs cpus > 0"),
      csv_case("CsvGpusOverflow", h + "a,0,99999999999999999999,100\n", 2, "num_gpus",
               "must be a whole number of GPUs or a share of one GPU in (0, 1)"),
      csv_case("CsvGpusBeyondInt", h + "a,0,99999999999,100\n", 2, "num_gpus",
               "must be a whole number of GPUs or a share of one GPU in (0, 1)"),
      csv_case("CsvGpusFraction", h + "a,0,1.5,100\n", 2, "num_gpus",
               "must be a whole number of GPUs or a share of one GPU in (0, 1), got 1.5"),
      csv_case("CsvGpusThousandth", h + "a,0,0.0005,100\n", 2, "num_gpus", "a multiple of 0.001"),
      csv_case("CsvDuplicateId", h + "a,0,4,100\na,1,4,100\n", 3, "job_id", "duplicate job id"),
      csv_case("CsvEmptyId", h + ",0,4,100\n", 2, "job_id", "missing value"),
      csv_case("CsvUnterminatedQuote", h + "\"a,0,4,100\n", 2, "", "unterminated quoted field"),
      csv_case("CsvQuoteInsideField", h + "a\"b,0,4,100\n", 2, "", "quote inside"),
      csv_case("CsvPriorityNotInteger",
               "job_id,submit_time,num_gpus,duration,priority\na,0,4,100,high\n", 2, "priority",
               "not an integer"),
      csv_case("CsvPriorityOverflow",
               "job_id,submit_time,num_gpus,duration,priority\na,0,4,100,99999999999\n", 2,
               "priority", "out of range"),
      csv_case("CsvCpusNegative", "job_id,submit_time,num_gpus,duration,cpus\na,0,4,100,-1\n", 2,
               "cpus", "negative"),
      csv_case("CsvMemNotANumber", "job_id,submit_time,num_gpus,duration,mem_gb\na,0,4,100,lots\n",
               2, "mem_gb", "not a finite number"),
      csv_case("CsvHugeValueIsCut", h + "a," + big(10000, '9') + "x,4,100\n", 2, "submit_time",
               "..."),
      csv_case("CsvControlBytesAreEscaped", h + "a,\x01\x02,4,100\n", 2, "submit_time",
               "\\x01\\x02"),
      csv_case("CsvLineCountsCommentsAndBlanks", h + "a,0,4,100\n# note\n\nb,1,x,5\n", 5,
               "num_gpus", "not a finite number"),
      csv_case("CsvCrlfRow", h + "a,0,4,100\r\nb,1,4,-1\r\n", 3, "duration", "negative"),
  };
}

// Jobs that can never run: the trace's line and the job's field.
std::vector<Case> impossible_job_cases() {
  const std::string header = "job_id,submit_time,num_gpus,duration,vc,gpu_type,cpus,mem_gb\n";
  const std::string cluster =
      "[cluster]\nnodes = 2\ngpus_per_node = 8\ncpus_per_node = 8\nmem_gb_per_node = 64\n"
      "vcs = {x = 8}\n[workload]\ntrace = \"v.csv\"\n";
  const auto make = [&](std::string name, std::string row, std::string field, std::string text) {
    return Case{
        std::move(name),  {{"cfg.toml", cluster}, {"v.csv", header + "a,0,1,10,x,,,\n" + row}},
        "v.csv",          3,
        std::move(field), std::move(text)};
  };
  return {
      make("ImpossibleTooManyGpus", "b,0,64,100,x,,,\n", "num_gpus", "can never run"),
      make("ImpossibleOverVcQuota", "b,0,16,100,x,,,\n", "num_gpus", "quota"),
      make("ImpossibleUnknownVc", "b,0,2,100,y,,,\n", "vc", "is not defined"),
      make("ImpossibleGpuType", "b,0,2,100,x,a100,,\n", "gpu_type", "a100"),
      make("ImpossibleCpus", "b,0,2,100,x,,64,\n", "cpus", "can never run"),
      make("ImpossibleMemory", "b,0,2,100,x,,,1000\n", "mem_gb", "can never run"),
  };
}

// GPU memory and MIG slices: the trace's line and the job's field.
std::vector<Case> gpu_memory_and_mig_cases() {
  const std::string header = "job_id,submit_time,num_gpus,duration,gpu_mem_gb,mig_profile\n";
  const std::string memory =
      "[cluster]\nnodes = 1\ngpus_per_node = 2\ngpu_mem_gb = 16\n[workload]\ntrace = "
      "\"v.csv\"\n[sharing]\ninterference = \"none\"\n";
  const std::string mig =
      "[cluster]\nnodes = 1\ngpus_per_node = 2\nmig = \"a100-40gb\"\n[workload]\ntrace = "
      "\"v.csv\"\n";
  const auto make = [&](std::string name, const std::string& config, std::string row,
                        std::string field, std::string text) {
    // (The first row runs: a whole GPU, or a slice where every GPU is in MIG mode.)
    const std::string first = config == mig ? "a,0,1,10,,1g.5gb\n" : "a,0,1,10,,\n";
    return Case{std::move(name),  {{"cfg.toml", config}, {"v.csv", header + first + row}},
                "v.csv",          3,
                std::move(field), std::move(text)};
  };
  return {
      make("GpuMemoryShareOverAnyGpu", memory, "b,0,0.5,100,20,\n", "gpu_mem_gb",
           "the largest GPU has 16 GB"),
      make("GpuMemoryWholeOverAnyGpu", memory, "b,0,1,100,24,\n", "gpu_mem_gb",
           "the largest GPU has 16 GB"),
      make("GpuMemoryNegative", memory, "b,0,0.5,100,-1,\n", "gpu_mem_gb", "negative"),
      make("MigUnknownProfile", mig, "b,0,1,100,,2g.5gb\n", "mig_profile", "unknown MIG profile"),
      make("MigProfileNotOffered", mig, "b,0,1,100,,1g.20gb\n", "mig_profile", "no MIG node"),
      make("MigMoreThanOneGpu", mig, "b,0,2,100,,1g.5gb\n", "mig_profile", "num_gpus must be 1"),
      make("MigMemoryOverTheSlice", mig, "b,0,1,100,8,1g.5gb\n", "gpu_mem_gb",
           "its MIG profile 1g.5gb has 5 GB"),
  };
}

// Gavel traces and their throughput table.
std::vector<Case> gavel_cases() {
  const std::string job = "ResNet-18 (batch size 64)";
  const std::string table = "{\"v100\": {\"('" + job + "', 1)\": {\"null\": 10.0},\n \"('" + job +
                            "', 2)\": {\"null\": 18.0}}}\n";
  const std::string good = job + "\tcmd\t100\t1\t1000\t0\t1\n";
  const auto make = [&](std::string name, std::string trace, std::size_t line, std::string field,
                        std::string message, std::string tp = "", std::string extra = "") {
    return Case{std::move(name),
                {{"cfg.toml", config("g.trace", "gavel", "throughputs = \"tp.json\"\n" + extra)},
                 {"g.trace", std::move(trace)},
                 {"tp.json", tp.empty() ? table : tp}},
                "g.trace",
                line,
                std::move(field),
                std::move(message)};
  };
  std::vector<Case> cases = {
      make("GavelScaleFactorZero", good + job + "\tcmd\t100\t1\t1000\t5\t0\n", 2, "scale_factor",
           "out of range"),
      make("GavelTooFewFields", good + job + "\tcmd\t100\t1\t1000\n", 2, "arrival_time",
           "missing value"),
      make("GavelNeitherLayout", job + "\tcmd\t100\t1\t1000\n", 1, "", "7 or 10"),
      make("GavelTooManyFields", good + good.substr(0, good.size() - 1) + "\t9\n", 2, "",
           "8 tab-separated fields"),
      make("GavelUnknownJobType", "Foo\tcmd\t100\t1\t1000\t0\t1\n", 1, "job_type", "no throughput"),
      make("GavelNeedsDataDir", job + "\tcmd\t100\t2\t1000\t0\t1\n", 1, "needs_data_dir",
           "out of range"),
      make("GavelPriorityWeightZero", job + "\tcmd\tdir\t100\t1\t1000\t1\t0\t-1\t0\n", 1,
           "priority_weight", "must be > 0"),
      make("GavelArrivalNegative", job + "\tcmd\t100\t1\t1000\t-1\t1\n", 1, "arrival_time",
           "negative"),
      make("GavelStepsZero", job + "\tcmd\t100\t1\t0\t0\t1\n", 1, "total_steps", "must be > 0"),
      make("GavelNoThroughputForScale", job + "\tcmd\t100\t1\t10\t0\t4\n", 1, "job_type",
           "no throughput"),
  };
  // Errors in the throughput table name the table.
  const auto table_case = [&](std::string name, std::string tp, std::size_t line, std::string field,
                              std::string message, std::string extra = "") {
    Case c = make(std::move(name), good, line, std::move(field), std::move(message), std::move(tp),
                  std::move(extra));
    c.file = "tp.json";
    return c;
  };
  cases.push_back(table_case("GavelTableSyntax", "{\"v100\": {\n", 2, "", "invalid JSON"));
  cases.push_back(table_case("GavelTableNumberOverflow",
                             "{\"v100\":\n {\"('" + job + "', 1)\":\n {\"null\": 1e999}}}\n", 3, "",
                             "number too large"));
  cases.push_back(table_case("GavelTableUnknownGpuType", table, 0, "gavel_gpu_type", "a100",
                             "gavel_gpu_type = \"a100\"\n"));
  cases.push_back(table_case("GavelTableNotANumber",
                             "{\"v100\": {\"('" + job + "', 1)\": {\"null\": \"fast\"}}}", 0,
                             "v100/('" + job + "', 1)/null", "not a number"));
  cases.push_back(table_case("GavelTableNegativeRate", "{\"v100\": {\"('A', 1)\": {\"null\": -1}}}",
                             0, "v100/('A', 1)/null", "must be a finite number >= 0"));
  cases.push_back(
      table_case("GavelTableNotAnObject", "[1, 2]", 0, "throughputs", "expected a JSON object"));
  Case missing = make("GavelTableMissing", good, 0, "", "cannot open the throughput table");
  missing.files["cfg.toml"] = config("g.trace", "gavel", "throughputs = \"nope.json\"\n");
  missing.file = "nope.json";
  cases.push_back(missing);
  Case unset = make("GavelTableNotConfigured", good, 0, "throughputs", "simulation_throughputs");
  unset.files["cfg.toml"] = config("g.trace", "gavel");
  cases.push_back(unset);
  return cases;
}

// Alibaba openb pod lists.
std::vector<Case> openb_cases() {
  const std::string header =
      "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
      "deletion_time,scheduled_time\n";
  const auto make = [&](std::string name, std::string rows, std::size_t line, std::string field,
                        std::string message, std::string head = "") {
    return Case{
        std::move(name),
        {{"cfg.toml", config("o.csv", "openb")}, {"o.csv", (head.empty() ? header : head) + rows}},
        "o.csv",
        line,
        std::move(field),
        std::move(message)};
  };
  const std::string ok = "p0,8000,16384,1,1000,V100,LS,Succeeded,0,1000,10\n";
  return {
      make("OpenbNoTimeColumns", "p1,8000,16384,1,1000\n", 1, "creation_time", "no pod times",
           "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n"),
      make("OpenbGpuMilliZero", ok + "p1,8000,16384,1,0,V100,LS,Succeeded,0,1000,10\n", 3,
           "gpu_milli", "out of range"),
      make("OpenbGpuMilliOver", "p1,8000,16384,1,1001,V100,LS,Succeeded,0,1000,10\n", 2,
           "gpu_milli", "out of range"),
      make("OpenbScheduledBeforeCreated", "p1,8000,16384,1,1000,V100,LS,Succeeded,100,1000,10\n", 2,
           "scheduled_time", "before it was created"),
      make("OpenbDeletedBeforeScheduled", "p1,8000,16384,1,1000,V100,LS,Succeeded,0,5,10\n", 2,
           "deletion_time", "after scheduled_time"),
      make("OpenbNegativeGpus", "p1,8000,16384,-1,1000,V100,LS,Succeeded,0,1000,10\n", 2, "num_gpu",
           "out of range"),
      make("OpenbCpuNotANumber", "p1,x,16384,1,1000,V100,LS,Succeeded,0,1000,10\n", 2, "cpu_milli",
           "not a finite number"),
      make("OpenbShortRow", "p1,8000,16384,1,1000\n", 2, "", "row has 5 fields"),
      make("OpenbDuplicateName", ok + ok, 3, "name", "duplicate"),
  };
}

// SenseTime Helios job logs.
std::vector<Case> helios_cases() {
  const std::string header =
      "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,"
      "queue\n";
  const auto row = [](std::string id, std::string gpus, std::string state, std::string submit,
                      std::string start, std::string end, std::string duration) {
    return id + ",u,vc1," + gpus + ",8,1," + state + "," + submit + "," + start + "," + end + "," +
           duration + ",0\n";
  };
  const std::string t0 = "2020-03-01 00:00:00", t1 = "2020-03-01 01:00:00",
                    t2 = "2020-03-01 02:00:00";
  const std::string ok = row("h0", "1", "COMPLETED", t0, t0, t1, "3600");
  const auto make = [&](std::string name, std::string rows, std::size_t line, std::string field,
                        std::string message, std::string head = "") {
    return Case{
        std::move(name),
        {{"cfg.toml", config("h.csv", "helios")}, {"h.csv", (head.empty() ? header : head) + rows}},
        "h.csv",
        line,
        std::move(field),
        std::move(message)};
  };
  return {
      make("HeliosUnknownState", ok + row("h1", "1", "RUNNING", t0, t0, t1, "3600"), 3, "state",
           "unknown state"),
      make("HeliosNoSuchDate", row("h1", "1", "COMPLETED", "2020-02-30 00:00:00", "", "", "10"), 2,
           "submit_time", "not a valid"),
      // An AcmeTrace job trace read as Helios: the missing vc column, and what the file is.
      make("HeliosGivenAnAcmeTrace",
           "a1,u1,1,8,128,Pretrain,COMPLETED,2023-03-01 00:18:22+08:00,,,117,32,936.0\n", 1, "vc",
           "(this looks like an AcmeTrace job trace: use workload.format = \"acme\")",
           "job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,"
           "duration,queue,gpu_time\n"),
      make("HeliosSubmittedAfterEnd", row("h1", "1", "COMPLETED", t2, "", t1, "3600"), 2,
           "end_time", "before submit_time"),
      make("HeliosStartBeforeSubmit", row("h1", "1", "COMPLETED", t1, t0, t2, "3600"), 2,
           "start_time", "before submit_time"),
      make("HeliosEndBeforeStart", row("h1", "1", "COMPLETED", t0, t2, t1, "3600"), 2, "end_time",
           "before start_time"),
      make("HeliosDurationZero", row("h1", "1", "COMPLETED", t0, t0, t0, "0"), 2, "duration",
           "> 0 s"),
      make("HeliosMissingColumn", "", 1, "duration", "required column missing",
           "job_id,user,vc,gpu_num,cpu_num,state,submit_time\n"),
      make("HeliosGpusNotInteger", row("h1", "two", "COMPLETED", t0, t0, t1, "3600"), 2, "gpu_num",
           "not an integer"),
      make("HeliosBefore1970", row("h1", "1", "COMPLETED", "1969-12-31 23:59:59", "", "", "10"), 2,
           "submit_time", "before 1970"),
      make("HeliosBadStartTime", row("h1", "1", "COMPLETED", t0, "soon", t1, "3600"), 2,
           "start_time", "not a valid"),
  };
}

// Microsoft Philly job logs (JSON).
std::vector<Case> philly_cases() {
  const auto job = [](std::string id, std::string submitted = "\"2017-10-03 00:00:00\"",
                      std::string start = "\"2017-10-03 00:01:00\"",
                      std::string end = "\"2017-10-03 00:02:00\"", std::string gpus = "[\"g0\"]") {
    return "{\"status\": \"Pass\", \"vc\": \"v\", \"jobid\": " + id + ", \"user\": \"u\", " +
           "\"submitted_time\": " + submitted + ", \"attempts\": [{\"start_time\": " + start +
           ", \"end_time\": " + end + ", \"detail\": [{\"ip\": \"m\", \"gpus\": " + gpus + "}]}]}";
  };
  const std::string first = "[\n" + job("\"a\"") + ",\n";
  const auto make = [&](std::string name, std::string text, std::size_t line, std::string field,
                        std::string message) {
    return Case{
        std::move(name),  {{"cfg.toml", config("p.json", "philly")}, {"p.json", std::move(text)}},
        "p.json",         line,
        std::move(field), std::move(message)};
  };
  return {
      make("PhillySyntaxError", first + "{\"jobid\": \n", 4, "", "invalid JSON"),
      make("PhillyNumberOverflow", first + "  {\"jobid\": 1e999}\n]", 3, "", "number too large"),
      make("PhillyNotAList", "{\"jobs\": []}", 1, "", "expected a JSON list"),
      make("PhillyMissingJobId", first + job("null") + "\n]", 3, "jobs[1].jobid", "missing job id"),
      make("PhillyAttemptsMissing", first + "{\"jobid\": \"b\", \"submitted_time\": null}\n]", 3,
           "jobs[1].attempts", "missing"),
      make("PhillyEndBeforeStart",
           first + job("\"b\"", "\"2017-10-03 00:00:00\"", "\"2017-10-03 00:05:00\"") + "\n]", 3,
           "jobs[1].attempts[0].end_time", "ends before it starts"),
      make("PhillySubmittedAfterAttempt", first + job("\"b\"", "\"2017-10-03 00:03:00\"") + "\n]",
           3, "jobs[1].attempts[0].start_time", "before the job's submitted_time"),
      make("PhillyNoGpus",
           first +
               job("\"b\"", "\"2017-10-03 00:00:00\"", "\"2017-10-03 00:01:00\"",
                   "\"2017-10-03 00:02:00\"", "[]") +
               "\n]",
           3, "jobs[1].attempts[0].detail", "no GPUs"),
      make("PhillyDuplicateJobId", first + job("\"a\"") + "\n]", 3, "jobs[1].jobid", "duplicate"),
      make("PhillyBadTime", first + job("\"b\"", "\"2017-13-03 00:00:00\"") + "\n]", 3,
           "jobs[1].submitted_time", "not a valid"),
      make("PhillyElementNotAnObject", first + "42\n]", 3, "jobs[1]", "expected a job object"),
      // A file of another known kind: the reader's error says what it looks like and its key.
      make("PhillyGivenARuntimeTable", "runtime\n0.0\n12.5\n", 1, "",
           "(this looks like a runtime-distribution CSV, not a job trace: use workload.generator = "
           "\"philly\""),
      make("PhillyGivenANativeCsv", kCsvHeader + kCsvRows, 1, "",
           "(this looks like a native job CSV: use workload.format = \"csv\")"),
  };
}

// The config file's tables, and the files it names.
std::vector<Case> config_cases() {
  const std::string trace = kCsvHeader + kCsvRows;
  const auto make = [&](std::string name, std::string text, std::size_t line, std::string field,
                        std::string message) {
    return Case{std::move(name),  {{"cfg.toml", std::move(text)}, {"t.csv", trace}},
                "cfg.toml",       line,
                std::move(field), std::move(message)};
  };
  const std::string workload = "[workload]\ntrace = \"t.csv\"\n";
  const std::string generator = "[cluster]\nnodes = 2\n[workload]\ngenerator = \"philly\"\n";
  std::string many_groups;
  for (int i = 0; i < 9; ++i)
    many_groups += "[[cluster.node_group]]\nnodes = 4000000\ngpus_per_node = 64\n";
  std::vector<Case> cases = {
      make("ConfigTomlSyntax", "[cluster]\nnodes = = 2\n", 2, "", "not valid TOML"),
      make("ConfigUnknownTable", "[clustr]\nnodes = 2\n" + workload, 1, "clustr", "unknown table"),
      make("ConfigUnknownKeySuggests", config_with_tail("[metrics]\nsample_intervl_s = 5\n"), 12,
           "metrics.sample_intervl_s", "did you mean 'sample_interval_s'"),
      make("ConfigMisspeltRequiredKey", "[cluster]\nnode = 2\n" + workload, 2, "cluster.node",
           "did you mean 'nodes'"),
      make("ConfigMisspeltTrace", "[cluster]\nnodes = 2\n[workload]\ntrce = \"t.csv\"\n", 4,
           "workload.trce", "did you mean 'trace'"),
      make("ConfigMisspeltGeneratorKey", generator + "jbos = 10\n", 5, "workload.jbos",
           "did you mean 'jobs'"),
      make("ConfigTraceAndGenerator",
           "[cluster]\nnodes = 2\n" + workload + "generator = \"philly\"\n", 5,
           "workload.generator", "exactly one"),
      make("ConfigNeitherTraceNorGenerator", "[cluster]\nnodes = 2\n[workload]\nformat = \"csv\"\n",
           3, "workload.trace", "exactly one"),
      make("ConfigMissingCluster", workload, 0, "cluster", "missing table [cluster]"),
      make("ConfigClusterNotATable", "cluster = 5\n" + workload, 1, "cluster", "expected a table"),
      make("ConfigNodesString", "[cluster]\nnodes = \"two\"\n" + workload, 2, "cluster.nodes",
           "expected an integer"),
      make("ConfigNodesNegative", "[cluster]\nnodes = -1\n" + workload, 2, "cluster.nodes",
           "must be in"),
      make("ConfigNodesHuge", "[cluster]\nnodes = 99999999999\n" + workload, 2, "cluster.nodes",
           "must be in"),
      make("ConfigGpusPerNodeZero", "[cluster]\nnodes = 2\ngpus_per_node = 0\n" + workload, 3,
           "cluster.gpus_per_node", "must be in"),
      make("ConfigGpusPerNodeFloat", "[cluster]\nnodes = 2\ngpus_per_node = 8.5\n" + workload, 3,
           "cluster.gpus_per_node", "expected an integer"),
      make("ConfigNoNodes", "[cluster]\ngpus_per_node = 8\n" + workload, 1, "cluster.nodes",
           "needs nodes"),
      make("ConfigNodeGroupWithoutNodes", "[[cluster.node_group]]\nname = \"a\"\n" + workload, 1,
           "cluster.node_group[0].nodes", "missing"),
      make("ConfigNodeGroupNotAList", "[cluster]\nnode_group = 5\n" + workload, 2,
           "cluster.node_group", "expected an array of tables"),
      make("ConfigNodeGroupsOverflow", many_groups + workload, 1, "cluster.node_group",
           "more than 2147483647"),
      // Within the key's range, past what the engine indexes (2^24 - 1 GPUs): key and limit.
      make("ConfigNodesOverTheEngine", "[cluster]\nnodes = 4194304\n" + workload, 2,
           "cluster.nodes",
           "4194304 nodes x 8 GPUs = 33554432 GPUs, more than the simulator indexes (at most "
           "16777215 GPUs)"),
      make(
          "ConfigNodeGroupsOverTheEngine",
          "[[cluster.node_group]]\nnodes = 2097152\n[[cluster.node_group]]\nnodes = 1\n" + workload,
          1, "cluster.node_group",
          "the groups add up to 16777224 GPUs, more than the simulator indexes (at most 16777215 "
          "GPUs)"),
      make("ConfigVcsNotATable", "[cluster]\nnodes = 2\nvcs = 5\n" + workload, 3, "cluster.vcs",
           "expected a table"),
      make("ConfigVcQuotaZero", "[cluster]\nnodes = 2\nvcs = {x = 0}\n" + workload, 3,
           "cluster.vcs.x", "must be in"),
      make("ConfigCpusNegative", "[cluster]\nnodes = 2\ncpus_per_node = -1\n" + workload, 3,
           "cluster.cpus_per_node", "must be in"),
      make("ConfigFormatUnknown", config("t.csv", "xml"), 7, "workload.format",
           "unknown value 'xml'"),
      make("ConfigFormatHugeIsCut", config("t.csv", big(5000)), 7, "workload.format", "..."),
      make("ConfigSkipInvalidNotBool", config("t.csv", "csv", "skip_invalid = \"yes\"\n"), 8,
           "workload.skip_invalid", "expected true or false"),
      make("ConfigGeneratorJobsZero", generator + "jobs = 0\n", 5, "workload.jobs", "must be in"),
      make("ConfigGeneratorJobsHuge", generator + "jobs = 9223372036854775807\n", 5,
           "workload.jobs", "must be in"),
      make("ConfigGeneratorLoadNegative", generator + "load = -0.5\n", 5, "workload.load",
           "must be in"),
      make("ConfigGeneratorVcsNotAList", generator + "vcs = \"a\"\n", 5, "workload.vcs",
           "expected a list"),
      // The philly generator's cluster-like patterns (philly_patterns.cc).
      make("ConfigGeneratorVcWeightsNegative",
           generator + "vcs = [\"a\", \"b\"]\nvc_weights = [1, -2]\n", 6, "workload.vc_weights",
           "expected finite weights >= 0"),
      make("ConfigGeneratorVcWeightsCount",
           generator + "vcs = [\"a\", \"b\"]\nvc_weights = [1, 2, 3]\n", 6, "workload.vc_weights",
           "one weight per VC in `vcs` (2), got 3"),
      make("ConfigGeneratorVcWeightsAllZero",
           generator + "vcs = [\"a\", \"b\"]\nvc_weights = [0, 0]\n", 6, "workload.vc_weights",
           "all 0"),
      make("ConfigGeneratorVcQuotasWithoutVcs", generator + "vc_quotas = \"weights\"\n", 5,
           "workload.vc_quotas", "needs the VCs"),
      make("ConfigGeneratorVcQuotasUnknown", generator + "vc_quotas = \"equal\"\n", 5,
           "workload.vc_quotas", "unknown value 'equal'"),
      make("ConfigGeneratorVcQuotasAndClusterVcs",
           "[cluster]\nnodes = 2\nvcs = { a = 8 }\n[workload]\ngenerator = \"philly\"\n"
           "vcs = [\"a\"]\nvc_quotas = \"weights\"\n",
           7, "workload.vc_quotas", "leave [cluster] vcs unset"),
      make(
          "ConfigGeneratorVcQuotasMoreVcsThanGpus",
          generator + "vcs = [" +
              [] {
                std::string names;
                for (int i = 0; i < 20; ++i)
                  names += (i ? ", \"v" : "\"v") + std::to_string(i) + "\"";
                return names;
              }() +
              "]\nvc_quotas = \"weights\"\n",
          6, "workload.vc_quotas", "20 VCs need at least 20 GPUs"),
      make("ConfigGeneratorArrivalPatternUnknown", generator + "arrival_pattern = \"hourly\"\n", 5,
           "workload.arrival_pattern", "unknown value 'hourly'"),
      make("ConfigGeneratorRateByHourWithoutDiurnal", generator + "rate_by_hour = [1, 2]\n", 5,
           "workload.rate_by_hour", "only with arrival_pattern = \"diurnal\""),
      make("ConfigGeneratorRateByHourCount",
           generator + "arrival_pattern = \"diurnal\"\nrate_by_hour = [1, 2]\n", 6,
           "workload.rate_by_hour", "expected 24 relative rates"),
      make("ConfigGeneratorRateByWeekdayNegative",
           generator + "arrival_pattern = \"diurnal\"\nrate_by_weekday = [1, 1, 1, 1, 1, 1, -1]\n",
           6, "workload.rate_by_weekday", "expected finite relative rates >= 0"),
      make("ConfigGeneratorRateByWeekdayAllZero",
           generator + "arrival_pattern = \"diurnal\"\nrate_by_weekday = [0, 0, 0, 0, 0, 0, 0]\n",
           6, "workload.rate_by_weekday", "no job would ever arrive"),
      make("ConfigGeneratorCorrelationAboveOne", generator + "gpu_duration_correlation = 1.5\n", 5,
           "workload.gpu_duration_correlation", "must be in"),
      make("ConfigGeneratorCorrelationOnSynergy",
           "[cluster]\nnodes = 2\n[workload]\ngenerator = \"synergy\"\n"
           "gpu_duration_correlation = 0.5\n",
           5, "workload.gpu_duration_correlation", "only with generator = \"philly\""),
      make("ConfigGeneratorUnknown", "[cluster]\nnodes = 2\n[workload]\ngenerator = \"alibaba\"\n",
           4, "workload.generator", "unknown value 'alibaba'"),
      make("ConfigTableDefinedTwice", config_with_tail("[scheduler]\npolicy = \"fair\"\n"), 11, "",
           "not valid TOML"),
      make("ConfigPlacementUnknown", config_with_tail("placement = \"tight\"\n"), 11,
           "scheduler.placement", "unknown value 'tight'"),
      make("ConfigLeaseNegative", config_with_tail("lease_s = -1\n"), 11, "scheduler.lease_s",
           "must be in"),
      make("ConfigLeaseBelowAMillisecond", config_with_tail("lease_s = 0.0001\n"), 11,
           "scheduler.lease_s", "must be 0"),
      make("ConfigCheckpointNegative", config_with_tail("checkpoint_s = -1\n"), 11,
           "scheduler.checkpoint_s", "must be in"),
      make("ConfigTiresiasNotAscending", config_with_tail("tiresias_thresholds = [10, 5]\n"), 11,
           "scheduler.tiresias_thresholds", "ascending"),
      make("ConfigVcQuotaModeUnknown", config_with_tail("vc_quota = \"loose\"\n"), 11,
           "scheduler.vc_quota", "unknown value"),
      make("ConfigSeedNegative", config_with_tail("seed = -1\n"), 11, "scheduler.seed",
           "must be in"),
      make("ConfigPreemptionNotBool", config_with_tail("preemption = 1\n"), 11,
           "scheduler.preemption", "expected true or false"),
      make("ConfigThroughputModelUnknown", config_with_tail("[throughput]\nmodel = \"magic\"\n"),
           12, "throughput.model", "unknown value"),
      make("ConfigCrossNodeFactorOverOne",
           config_with_tail("[throughput]\ncross_node_factor = 1.5\n"), 12,
           "throughput.cross_node_factor", "must be in"),
      make("ConfigProfileModelWithoutProfiles",
           config_with_tail("[throughput]\nmodel = \"profile\"\n"), 11, "throughput.profiles",
           "needs a folder"),
      make("ConfigSampleIntervalNegative", config_with_tail("[metrics]\nsample_interval_s = -1\n"),
           12, "metrics.sample_interval_s", "must be in"),
      make("ConfigDebugMisspelt", config_with_tail("[debug]\ncheck_invariant = true\n"), 12,
           "debug.check_invariant", "did you mean 'check_invariants'"),
      make("ConfigHugeKeyIsCut", config_with_tail(big(5000) + " = 1\n"), 11,
           "scheduler." + big(40) + "...", "unknown key"),
      make("ConfigSchedulerNotATable", "scheduler = 3\n[cluster]\nnodes = 2\n" + workload, 1,
           "scheduler", "expected a table"),
      make("ConfigPolicyUnknownValue",
           "[cluster]\nnodes = 2\n" + workload + "[scheduler]\npolicy = \"fair\"\n", 6,
           "scheduler.policy", "unknown value 'fair'"),
  };
  // Files the config names, and the config file itself.
  Case missing_trace = make("ConfigTraceMissing", config("nope.csv"), 0, "",
                            "cannot open the trace file: No such file");
  missing_trace.file = "nope.csv";
  cases.push_back(missing_trace);
  Case trace_dir =
      make("ConfigTraceIsADirectory", config("sub"), 0, "", "is a directory, not a trace file");
  trace_dir.files["sub/"] = "";
  trace_dir.file = "sub";
  cases.push_back(trace_dir);
  Case config_dir =
      make("ConfigIsADirectory", config(), 0, "", "is a directory, not a config file");
  config_dir.files["sub/"] = "";
  config_dir.file = "sub";
  config_dir.arguments = "run sub";
  cases.push_back(config_dir);
  Case missing_config =
      make("ConfigMissing", config(), 0, "", "cannot open the config file: No such file");
  missing_config.file = "nope.toml";
  missing_config.arguments = "run nope.toml";
  cases.push_back(missing_config);
  // --set overrides: the file is named with the assignment.
  Case set_syntax = make("SetWithoutSection", config(), 0, "clusternodes", "expected section.key");
  set_syntax.file = "cfg.toml (--set clusternodes=3)";
  set_syntax.arguments = "run cfg.toml --set clusternodes=3";
  cases.push_back(set_syntax);
  Case set_unknown = make("SetUnknownKey", config(), 0, "cluster.nodez", "did you mean 'nodes'");
  set_unknown.arguments = "run cfg.toml --set cluster.nodez=3";
  cases.push_back(set_unknown);
  Case set_value = make("SetWrongType", config(), 0, "cluster.nodes", "expected an integer");
  set_value.arguments = "run cfg.toml --set cluster.nodes=abc";
  cases.push_back(set_value);
  Case set_table = make("SetIntoAValue", "nodes = 3\n" + config(), 0, "nodes", "is not a table");
  set_table.file = "cfg.toml (--set nodes.x=1)";
  set_table.arguments = "run cfg.toml --set nodes.x=1";
  cases.push_back(set_table);
  return cases;
}

// Profiles ([throughput] model = "profile"): JSON files with the field's line.
std::vector<Case> profile_cases() {
  // Lines: 2 schema, 3 model, 4 gpu_type, 5 provenance, 6 reference, 7 cpus_per_gpu,
  // 8 mem_gb_per_gpu, 9 throughput.
  const auto profile = [](std::string replace_line, std::size_t at) {
    std::vector<std::string> lines = {
        "{",
        "  \"schema\": \"clustersim-profile/1\",",
        "  \"model\": \"m\",",
        "  \"gpu_type\": \"generic\",",
        "  \"provenance\": {\"kind\": \"measured\", \"source\": \"test\"},",
        "  \"reference\": {\"cpus_per_gpu\": 2, \"mem_gb_per_gpu\": 16},",
        "  \"cpus_per_gpu\": [1, 2],",
        "  \"mem_gb_per_gpu\": [8, 16],",
        "  \"throughput\": [[1, 2], [2, 3]]",
        "}"};
    if (at > 0) lines[at - 1] = replace_line;
    std::string text;
    for (const auto& line : lines) text += line + "\n";
    return text;
  };
  const std::string trace = "job_id,submit_time,num_gpus,duration,model\na,0,4,100,m\n";
  const std::string cfg =
      config_with_tail("[throughput]\nmodel = \"profile\"\nprofiles = \"prof\"\n");
  const auto make = [&](std::string name, std::string json, std::size_t line, std::string field,
                        std::string message) {
    return Case{
        std::move(name),
        {{"cfg.toml", cfg}, {"t.csv", trace}, {"prof/", ""}, {"prof/m.json", std::move(json)}},
        "prof/m.json",
        line,
        std::move(field),
        std::move(message)};
  };
  std::vector<Case> cases = {
      make("ProfileSyntaxError", profile("  \"model\": m,", 3), 3, "", "invalid JSON"),
      make("ProfileNumberOverflow", profile("  \"cpus_per_gpu\": [1, 2e999],", 7), 7, "",
           "number too large"),
      make("ProfileUnknownField", profile("  \"colour\": \"red\", \"model\": \"m\",", 3), 3,
           "colour", "unknown field"),
      make("ProfileMissingReference", profile("  \"batch_size\": 8,", 6), 1, "reference",
           "missing required field"),
      make("ProfileMissingNestedField", profile("  \"reference\": {\"cpus_per_gpu\": 2},", 6), 6,
           "reference.mem_gb_per_gpu", "missing required field"),
      make("ProfileWrongType", profile("  \"cpus_per_gpu\": \"many\",", 7), 7, "cpus_per_gpu",
           "must be an array"),
      make("ProfileThroughputNotPositive", profile("  \"throughput\": [[1, 2],\n    [0, 3]]", 9),
           10, "throughput[1][0]", "must be a finite number > 0"),
      make("ProfileWrongSchema", profile("  \"schema\": \"other/2\",", 2), 2, "schema",
           "unsupported schema"),
  };
  Case uncovered = make("ProfileMissingForAModel", profile("", 0), 3, "model", "no profile");
  uncovered.files["t.csv"] = trace + "b,1,2,50,other\n";
  uncovered.file = "t.csv";
  cases.push_back(uncovered);
  Case no_folder = make("ProfileFolderMissing", profile("", 0), 0, "", "does not exist");
  no_folder.files["cfg.toml"] =
      config_with_tail("[throughput]\nmodel = \"profile\"\nprofiles = \"nope\"\n");
  no_folder.file = "nope";
  cases.push_back(no_folder);
  return cases;
}

// Output files: refused before the simulation, so nothing is written.
std::vector<Case> output_cases() {
  const std::map<std::string, std::string> files = {{"cfg.toml", config()},
                                                    {"t.csv", kCsvHeader + kCsvRows}};
  return {
      {"OutputFolderMissing", files, "nope/out.csv", 0, "--jobs-out",
       "the folder 'nope' does not exist", "run cfg.toml --jobs-out nope/out.csv"},
      {"OutputIsADirectory",
       [&] {
         auto with_dir = files;
         with_dir["sub/"] = "";
         return with_dir;
       }(),
       "sub", 0, "--timeseries-out", "is a directory", "run cfg.toml --timeseries-out sub"},
      // Issue 13: --jobs-out was written, then --timeseries-out failed, leaving one of two.
      {"OutputSecondOfTwoFails",
       [&] {
         auto with_dir = files;
         with_dir["sub/"] = "";
         return with_dir;
       }(),
       "sub", 0, "--timeseries-out", "is a directory",
       "run cfg.toml --jobs-out out.csv --timeseries-out sub"},
      {"OutputTwiceTheSameFile", files, "./o.csv", 0, "--timeseries-out", "is also the --jobs-out",
       "run cfg.toml --jobs-out o.csv --timeseries-out ./o.csv"},
  };
}

// [mechanisms], the elastic CSV columns and failure traces.
std::vector<Case> mechanisms_cases() {
  const std::string trace = kCsvHeader + kCsvRows;
  const auto make = [&](std::string name, std::string tail, std::size_t line, std::string field,
                        std::string message) {
    return Case{std::move(name),  {{"cfg.toml", config_with_tail(tail)}, {"t.csv", trace}},
                "cfg.toml",       line,
                std::move(field), std::move(message)};
  };
  const std::string elastic_header = "job_id,submit_time,num_gpus,duration,min_gpus,max_gpus\n";
  const auto failure_trace = [&](std::string name, std::string rows, std::size_t line,
                                 std::string field, std::string message) {
    return Case{std::move(name),
                {{"cfg.toml", config_with_tail("[mechanisms]\nfailure_trace = \"f.csv\"\n")},
                 {"t.csv", trace},
                 {"f.csv", "node,down,up\n" + std::move(rows)}},
                "f.csv",
                line,
                std::move(field),
                std::move(message)};
  };
  return {
      make("MechanismsMigrationCostNegative", "[mechanisms]\nmigration_s = -1\n", 12,
           "mechanisms.migration_s", "must be in"),
      make("MechanismsResizeSampleNegative",
           "[mechanisms]\nresize_model = \"empirical\"\nresize_samples = [1, -2]\n", 13,
           "mechanisms.resize_samples", ">= 0"),
      make("MechanismsEmpiricalWithoutSamples", "[mechanisms]\nmigration_model = \"empirical\"\n",
           11, "mechanisms.migration_samples", "set them"),
      make("MechanismsMigrationUnknown", "[mechanisms]\nmigration = \"sometimes\"\n", 12,
           "mechanisms.migration", "unknown value 'sometimes'"),
      make("MechanismsFailureModelUnknown", "[mechanisms]\nfailure_model = \"gamma\"\n", 12,
           "mechanisms.failure_model", "unknown value 'gamma'"),
      make("MechanismsMtbfNegative", "[mechanisms]\nmtbf_h = -3\n", 12, "mechanisms.mtbf_h",
           "must be in"),
      make("MechanismsCheckpointIntervalNegative", "[mechanisms]\ncheckpoint_interval_s = -3\n", 12,
           "mechanisms.checkpoint_interval_s", "must be in"),
      make("MechanismsCheckpointCostInTheWrongTable", "[mechanisms]\ncheckpoint_s = 5\n", 12,
           "mechanisms.checkpoint_s", "set it in [scheduler]"),
      make("MechanismsScalingNotAscending",
           "[mechanisms.scaling]\nresnet50 = [[4, 2.0], [2, 1.5]]\n", 12,
           "mechanisms.scaling.resnet50", "ascending"),
      make("LocalityStrictWithSpread", "placement = \"spread\"\nlocality = \"strict\"\n", 12,
           "scheduler.locality", "needs placement = \"consolidate\""),
      {"CsvMinGpusAboveMaxGpus",
       {{"cfg.toml", config()}, {"t.csv", elastic_header + "a,0,2,100,1,4\nb,0,4,100,6,2\n"}},
       "t.csv",
       3,
       "min_gpus",
       "min_gpus 6 > max_gpus 2"},
      {"CsvNumGpusOutsideElasticRange",
       {{"cfg.toml", config()}, {"t.csv", elastic_header + "a,0,4,100,1,2\n"}},
       "t.csv",
       2,
       "num_gpus",
       "outside [min_gpus, max_gpus]"},
      failure_trace("FailureTraceUnknownNode", "0,10,20\n7,10,20\n", 3, "node", "no node '7'"),
      failure_trace("FailureTraceUpBeforeDown", "0,30,20\n", 2, "up", "come back up"),
      failure_trace("FailureTraceDownNotANumber", "0,soon,20\n", 2, "down", ""),
      make("FailureClassUnknownCause", "[mechanisms.failure_class.cosmic]\nrate_per_h = 1\n", 11,
           "mechanisms.failure_class.cosmic", "unknown cause"),
      make("FailureClassUnknownUnit",
           "[mechanisms.failure_class.gpu]\nrate_per_h = 1\nunit = \"pod\"\n", 13,
           "mechanisms.failure_class.gpu.unit", "expected gpu, node, rack, leaf or job_hour"),
      make("FailureMixWithoutDays", "[mechanisms]\nfailure_mix = \"t.csv\"\n", 12,
           "mechanisms.failure_mix", "needs failure_mix_days"),
      {"FailureMixRowWithoutCause",
       {{"cfg.toml",
         config_with_tail("[mechanisms]\nfailure_mix = \"m.csv\"\nfailure_mix_days = 5\n")},
        {"t.csv", trace},
        {"m.csv", "component,category,interruptions\nFaulty GPU,GPU,3\nCosmic ray,Sky,1\n"}},
       "m.csv",
       3,
       "component",
       "no cause fits 'Cosmic ray'"},
  };
}

// Serving DAG traces (format "dag"): the cycle, the parent that does not exist and the model no
// GPU can hold that the DAG issue names, plus an unknown model and a serving key on a training
// workload.
std::vector<Case> dag_cases() {
  const std::string header =
      "query_id,task_id,submit_time,model,parents,input_mb,output_mb,compute_ms\n";
  const auto dag = [&](std::string name, std::string rows, std::size_t line, std::string field,
                       std::string message, std::string workload_extra = "") {
    // No [scheduler] policy: a training key on a DAG workload is an error of its own.
    std::string cfg =
        "[cluster]\nnodes = 2\ngpus_per_node = 8\n[workload]\ntrace = \"q.csv\"\n"
        "format = \"dag\"\n" +
        workload_extra;
    return Case{std::move(name),  {{"cfg.toml", std::move(cfg)}, {"q.csv", header + rows}},
                "q.csv",          line,
                std::move(field), std::move(message)};
  };
  std::vector<Case> cases = {
      dag("DagCycle", "q,a,0,opt,b,1,1,10\nq,b,0,opt,a,1,1,10\n", 2, "parents",
          "dependency cycle: a (line 2) -> b (line 3) -> a"),
      dag("DagParentThatDoesNotExist", "q,a,0,opt,,1,1,10\nq,b,0,opt,zz,1,1,10\n", 3, "parents",
          "unknown parent 'zz'"),
      dag("DagUnknownModel", "q,a,0,opt,,1,1,10\nq,b,0,gpt9,a,1,1,10\n", 3, "model",
          "unknown model 'gpt9'"),
  };
  // opt needs 5.72 GB; the cluster's GPUs hold 4 GB.
  Case too_big = dag("DagModelLargerThanAnyGpu", "r,a,0,vit,,1,1,10\nq,a,0,opt,,1,1,10\n", 3,
                     "model", "needs 5.72 GB of GPU memory");
  too_big.files["cfg.toml"] =
      "[cluster]\nnodes = 2\ngpu_mem_gb = 4\n[workload]\ntrace = \"q.csv\"\nformat = \"dag\"\n";
  cases.push_back(too_big);
  cases.push_back({"ServingKeyOnATrainingWorkload",
                   {{"cfg.toml", config_with_tail("task_placement = \"heft\"\n")},
                    {"t.csv", kCsvHeader + kCsvRows}},
                   "cfg.toml",
                   11,
                   "scheduler.task_placement",
                   "only for DAG workloads"});
  return cases;
}

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  for (auto group : {csv_cases(), impossible_job_cases(), gpu_memory_and_mig_cases(), gavel_cases(),
                     openb_cases(), helios_cases(), philly_cases(), config_cases(),
                     mechanisms_cases(), profile_cases(), output_cases(), dag_cases()}) {
    cases.insert(cases.end(), group.begin(), group.end());
  }
  return cases;
}

// ---- the harness ------------------------------------------------------------------------------

std::set<std::string> listing(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& entry : fs::recursive_directory_iterator(dir))
    names.insert(fs::relative(entry.path(), dir).string());
  return names;
}

// gtest names a failing case by this, not by its bytes.
void PrintTo(const Case& c, std::ostream* out) { *out << c.name; }

class BadInput : public ::testing::TestWithParam<Case> {};

TEST_P(BadInput, ExitsTwoWithFileLineFieldAndLeavesNothing) {
  const Case& c = GetParam();
  const fs::path dir = fs::temp_directory_path() /
                       ("clustersim_bad_input_" + std::to_string(::getpid()) + "_" + c.name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const auto& [name, content] : c.files) {
    if (name.back() == '/') {
      fs::create_directories(dir / name);
    } else {
      fs::create_directories((dir / name).parent_path());
      std::ofstream(dir / name, std::ios::binary) << content;
    }
  }
  const std::set<std::string> before = listing(dir);
  std::string arguments = c.arguments;
  if (arguments.find("-out") == std::string::npos)
    arguments += " --jobs-out out.csv --timeseries-out ts.csv";
  const std::string command = "cd '" + dir.string() + "' && '" + CLUSTERSIM_BIN_DIR +
                              "/clustersim' " + arguments + " 2>&1 >/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string err;
  char buffer[4096];
  while (std::size_t n = fread(buffer, 1, sizeof buffer, pipe)) err.append(buffer, n);
  const int status = pclose(pipe);
  const int exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;

  std::string where = c.file;
  if (c.line > 0) where += ":" + std::to_string(c.line);
  where += ": ";
  if (!c.field.empty()) where += "field '" + c.field + "': ";
  const std::string first_line = err.substr(0, err.find('\n'));
  EXPECT_EQ(exit_code, 2) << err;
  EXPECT_EQ(first_line.rfind("clustersim: error: " + where, 0), 0u)
      << "want: clustersim: error: " << where << "...\ngot:  " << first_line;
  EXPECT_NE(first_line.find(c.message), std::string::npos)
      << "message lacks '" << c.message << "': " << first_line;
  EXPECT_LT(err.size(), 400u) << "the message is not cut to a short excerpt: " << err.size()
                              << " bytes";
  EXPECT_EQ(listing(dir), before) << "the failed run left a file behind";
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(AllReadersAndTables, BadInput, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return info.param.name;
                         });

TEST(BadInputSuite, CoversAtLeastAHundredCases) { EXPECT_GE(all_cases().size(), 100u); }

}  // namespace
