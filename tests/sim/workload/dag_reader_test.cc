// The native DAG trace reader: exact parsing, topological order, and one error per fault.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "clustersim/dag.h"
#include "clustersim/error.h"
#include "clustersim/workload.h"
#include "workload_test_util.h"

namespace clustersim {
namespace {

using testing::expect_input_error;

constexpr const char* kDagHeader =
    "query_id,task_id,submit_time,model,parents,input_mb,output_mb,compute_ms\n";

Workload read_dag_text(const std::string& rows, bool skip_invalid = false) {
  std::istringstream in(kDagHeader + rows);
  ReaderOptions options;
  options.skip_invalid = skip_invalid;
  return read_dag(in, "t.csv", options);
}

void expect_dag_error(const std::string& rows, std::size_t line, const std::string& field) {
  expect_input_error([&] { read_dag_text(rows); }, "t.csv", line, field);
}

std::string dag_error_message(const std::string& rows) {
  try {
    read_dag_text(rows);
  } catch (const InputError& error) {
    return error.what();
  }
  ADD_FAILURE() << "expected an InputError";
  return "";
}

std::vector<std::uint32_t> parents_of(const DagInfo& dag, std::uint32_t task) {
  return {dag.parents.begin() + dag.parent_begin[task],
          dag.parents.begin() + dag.parent_begin[task + 1]};
}

TEST(DagReader, ReadsSampleFileExactly) {
  const Workload w = read_trace(testing::workload_data("dag_good.csv"), TraceFormat::kDag, {});
  ASSERT_TRUE(w.dag);
  const DagInfo& dag = *w.dag;
  ASSERT_EQ(w.jobs.size(), 6u);
  ASSERT_EQ(dag.query_count(), 2u);
  EXPECT_EQ(w.skipped_rows, 0u);

  // Topological order; among ready tasks, file order: vit, then caption (line 6) before
  // speech (line 8), then join.
  const char* ids[] = {"img-1/vit",  "img-1/caption", "img-1/speech",
                       "img-1/join", "qa-7/opt",      "qa-7/nli"};
  const std::size_t lines[] = {7, 6, 8, 5, 10, 11};
  for (std::size_t t = 0; t < 6; ++t) {
    EXPECT_EQ(w.jobs[t].id, ids[t]);
    EXPECT_EQ(w.jobs[t].source_line, lines[t]) << ids[t];
    EXPECT_EQ(w.jobs[t].num_gpus, 1);
  }
  EXPECT_EQ(w.jobs[0].model, "vit");
  EXPECT_EQ(w.jobs[0].duration, 0.283);
  EXPECT_EQ(w.jobs[3].model, "aggregate");
  EXPECT_EQ(w.jobs[3].duration, 0.0002);
  EXPECT_EQ(w.jobs[4].duration, 0.56);
  for (std::size_t t = 0; t < 4; ++t) EXPECT_EQ(w.jobs[t].submit_time, 0.5);
  for (std::size_t t = 4; t < 6; ++t) EXPECT_EQ(w.jobs[t].submit_time, 2.25);

  EXPECT_TRUE(parents_of(dag, 0).empty());
  EXPECT_EQ(parents_of(dag, 1), std::vector<std::uint32_t>({0}));
  EXPECT_EQ(parents_of(dag, 2), std::vector<std::uint32_t>({0}));
  EXPECT_EQ(parents_of(dag, 3), std::vector<std::uint32_t>({1, 2}));  // as listed: caption;speech
  EXPECT_TRUE(parents_of(dag, 4).empty());
  EXPECT_EQ(parents_of(dag, 5), std::vector<std::uint32_t>({4}));
  EXPECT_EQ(dag.input_mb[3], 3.02);
  EXPECT_EQ(dag.output_mb[2], 3.0);
  EXPECT_EQ(dag.output_mb[4], 0.002);

  EXPECT_EQ(dag.query_ids, std::vector<std::string>({"img-1", "qa-7"}));
  EXPECT_EQ(dag.arrival_time, std::vector<double>({0.5, 2.25}));
  EXPECT_EQ(dag.task_begin, std::vector<std::uint32_t>({0, 4, 6}));
  EXPECT_EQ(dag.query_of, std::vector<std::uint32_t>({0, 0, 0, 0, 1, 1}));
  EXPECT_NO_THROW(check_dag(w));
}

TEST(DagReader, KeepsFileOrderWhenAlreadyTopological) {
  const Workload w = read_dag_text(
      "q,a,0,m,,1,1,1\n"
      "q,c,0,m,,1,1,1\n"
      "q,b,0,m,a;c,1,1,1\n");
  ASSERT_EQ(w.jobs.size(), 3u);
  EXPECT_EQ(w.jobs[0].id, "q/a");
  EXPECT_EQ(w.jobs[1].id, "q/c");
  EXPECT_EQ(w.jobs[2].id, "q/b");
  EXPECT_EQ(parents_of(*w.dag, 2), std::vector<std::uint32_t>({0, 1}));
}

TEST(DagReader, TaskIdsRepeatAcrossQueries) {
  const Workload w = read_dag_text(
      "q1,a,0,m,,1,1,1\n"
      "q2,a,1,m,,1,1,1\n");
  ASSERT_EQ(w.jobs.size(), 2u);
  EXPECT_EQ(w.jobs[1].id, "q2/a");
}

TEST(DagReader, UnknownParentNamesTheRowAndField) {
  expect_dag_error(
      "q,a,0,m,,1,1,1\n"
      "q,b,0,m,a;zz,1,1,1\n",
      3, "parents");
  EXPECT_NE(dag_error_message("q,a,0,m,x,1,1,1\n").find("unknown parent 'x'"), std::string::npos);
  // A parent in another query is unknown too.
  expect_dag_error(
      "q1,a,0,m,,1,1,1\n"
      "q2,b,0,m,a,1,1,1\n",
      3, "parents");
}

TEST(DagReader, CycleNamesATaskOnItAndItsLine) {
  // a -> b -> c -> a, plus d (fine) and e (stuck behind the cycle, not on it).
  const std::string rows =
      "q,d,0,m,,1,1,1\n"
      "q,e,0,m,c,1,1,1\n"
      "q,b,0,m,a,1,1,1\n"
      "q,c,0,m,b,1,1,1\n"
      "q,a,0,m,c;d,1,1,1\n";
  expect_dag_error(rows, 4, "parents");  // b (line 4) is the cycle's first row in the file
  const std::string message = dag_error_message(rows);
  EXPECT_NE(message.find("task 'b' of query 'q' is on a dependency cycle"), std::string::npos)
      << message;
  EXPECT_NE(message.find("b (line 4) -> c (line 5) -> a (line 6) -> b"), std::string::npos)
      << message;
  // A task that is its own parent.
  expect_dag_error("q,a,0,m,a,1,1,1\n", 2, "parents");
}

TEST(DagReader, DuplicateTaskIdInAQuery) {
  expect_dag_error(
      "q,a,0,m,,1,1,1\n"
      "q,a,0,m,,1,1,1\n",
      3, "task_id");
}

TEST(DagReader, RowsOfAQueryMustAgreeOnSubmitTime) {
  expect_dag_error(
      "q,a,0.5,m,,1,1,1\n"
      "q,b,0.25,m,a,1,1,1\n",
      3, "submit_time");
  EXPECT_NE(dag_error_message("q,a,0.5,m,,1,1,1\nq,b,0.25,m,a,1,1,1\n")
                .find("arrives at '0.5' (line 2); this row says '0.25'"),
            std::string::npos);
}

TEST(DagReader, RowsOfAQueryMustBeContiguous) {
  expect_dag_error(
      "q1,a,0,m,,1,1,1\n"
      "q2,a,0,m,,1,1,1\n"
      "q1,b,0,m,a,1,1,1\n",
      4, "query_id");
}

TEST(DagReader, BadFieldsNameTheirColumn) {
  expect_dag_error("q,a,0,m,,-1,1,1\n", 2, "input_mb");
  expect_dag_error("q,a,0,m,,1,nan,1\n", 2, "output_mb");
  expect_dag_error("q,a,0,m,,1,inf,1\n", 2, "output_mb");
  expect_dag_error("q,a,0,m,,1,1,0\n", 2, "compute_ms");
  expect_dag_error("q,a,0,m,,1,1,1e-323\n", 2, "compute_ms");
  expect_dag_error("q,a,-1,m,,1,1,1\n", 2, "submit_time");
  expect_dag_error("q,a,0,,,1,1,1\n", 2, "model");
  expect_dag_error(",a,0,m,,1,1,1\n", 2, "query_id");
  expect_dag_error("q,,0,m,,1,1,1\n", 2, "task_id");
  expect_dag_error("x/y,a,0,m,,1,1,1\n", 2, "query_id");
  expect_dag_error("q,a;b,0,m,,1,1,1\n", 2, "task_id");
  expect_dag_error("q,a,0,m,,1,1,1\nq,b,0,m,a;;a,1,1,1\n", 3, "parents");
  expect_dag_error("q,a,0,m,,1,1,1\nq,b,0,m,a; a,1,1,1\n", 3, "parents");  // listed twice
  expect_dag_error("q,a,0,m,,1,1\n", 2, "");                               // field count
}

TEST(DagReader, HeaderErrors) {
  const auto read = [](const std::string& text) {
    std::istringstream in(text);
    return read_dag(in, "t.csv", {});
  };
  expect_input_error([&] { read("query_id,task_id,submit_time,model,parents,input_mb\n"); },
                     "t.csv", 1, "output_mb");
  expect_input_error(
      [&] {
        read("query_id,task_id,submit_time,model,parents,input_mb,output_mb,compute_ms,gpus\n");
      },
      "t.csv", 1, "gpus");
  expect_input_error([&] { read(""); }, "t.csv", 0, "");
  expect_input_error([&] { read(kDagHeader); }, "t.csv", 0, "");  // no tasks
}

TEST(DagReader, SkipInvalidDropsWholeQueries) {
  const Workload w = read_dag_text(
      "ok,a,0,m,,1,1,1\n"
      "ok,b,0,m,a,1,1,2\n"
      "cyc,a,1,m,b,1,1,1\n"
      "cyc,b,1,m,a,1,1,1\n"
      "badrow,a,2,m,,1,1,1\n"
      "badrow,b,2,m,a,-5,1,1\n"
      "badrow,c,2,m,b,1,1,1\n"
      ",orphan,3,m,,1,1,1\n"
      "late,a,4,m,,1,1,1\n",
      true);
  ASSERT_EQ(w.jobs.size(), 3u);
  EXPECT_EQ(w.jobs[0].id, "ok/a");
  EXPECT_EQ(w.jobs[1].id, "ok/b");
  EXPECT_EQ(w.jobs[2].id, "late/a");
  EXPECT_EQ(w.dag->query_ids, std::vector<std::string>({"ok", "late"}));
  EXPECT_EQ(w.dag->task_begin, std::vector<std::uint32_t>({0, 2, 3}));
  EXPECT_EQ(w.skipped_rows, 2u + 3u + 1u);
  ASSERT_EQ(w.skip_reasons.size(), 3u);
  EXPECT_NE(w.skip_reasons[0].find("t.csv:4: field 'parents'"), std::string::npos)
      << w.skip_reasons[0];
  // In the order found: the orphan row at once, the query "badrow" when it ends.
  EXPECT_NE(w.skip_reasons[1].find("t.csv:9: field 'query_id'"), std::string::npos)
      << w.skip_reasons[1];
  EXPECT_NE(w.skip_reasons[2].find("t.csv:7: field 'input_mb'"), std::string::npos)
      << w.skip_reasons[2];
  EXPECT_NO_THROW(check_dag(w));
}

TEST(DagReader, SkipInvalidWithNothingLeftIsAnError) {
  expect_input_error([] { read_dag_text("q,a,0,m,a,1,1,1\n", true); }, "t.csv", 0, "");
}

}  // namespace
}  // namespace clustersim
