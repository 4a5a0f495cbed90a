// The side-file cache (side_file_cache.h): a second use of an unchanged file is served without
// reading it (or, while it is too recent to trust its stamp, by comparing its bytes, without
// parsing it again); a changed file is read and parsed again; errors are not kept; and a run
// config parsed twice with one cache shares its profile library, re-read when the folder
// changes.
#include "clustersim/side_file_cache.h"

#include <gtest/gtest.h>
#include <toml++/toml.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "clustersim/config.h"
#include "clustersim/error.h"
#include "clustersim/profile.h"

namespace clustersim {
namespace {

namespace fs = std::filesystem;

// A fresh folder of this test's own under the system's temporary folder.
fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() /
                       ("clustersim_side_file_cache_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void write(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

// Counts its parses, and gives the text back.
struct CountingParse {
  int calls = 0;
  std::string operator()(const std::vector<std::string>& texts) {
    ++calls;
    return texts.at(0);
  }
};

std::shared_ptr<const std::string> get(SideFileCache& cache, const fs::path& path,
                                       CountingParse& parse) {
  return cache.get<std::string>(
      "text\n" + path.string(), {path.string()}, "test file",
      [&](const std::vector<std::string>& texts) { return parse(texts); });
}

TEST(SideFileCache, ASecondUseIsServedWithoutReadingAndAChangedFileIsReadAgain) {
  const fs::path dir = scratch("trusted");
  const fs::path file = dir / "a.txt";
  write(file, "alpha");
  SideFileCache cache(0.0);  // stamps trusted at once (the default waits for them to age)
  CountingParse parse;
  const auto first = get(cache, file, parse);
  EXPECT_EQ(*first, "alpha");
  const auto second = get(cache, file, parse);
  EXPECT_EQ(second.get(), first.get());  // the same parse, shared
  EXPECT_EQ(parse.calls, 1);
  SideFileCache::Stats stats = cache.stats();
  EXPECT_EQ(stats.lookups, 2u);
  EXPECT_EQ(stats.files_read, 1u);  // the second use read nothing
  EXPECT_EQ(stats.hits, 1u);
  EXPECT_EQ(stats.parses, 1u);

  write(file, "beta");  // another size: its stamp differs whatever the clock's tick
  const auto third = get(cache, file, parse);
  EXPECT_EQ(*third, "beta");
  EXPECT_EQ(parse.calls, 2);
  EXPECT_EQ(*first, "alpha");  // a value handed out stays as it was
  stats = cache.stats();
  EXPECT_EQ(stats.files_read, 2u);
  EXPECT_EQ(stats.parses, 2u);
  fs::remove_all(dir);
}

// A file written within kTrustAfterSeconds of its read may change again within the same
// timestamp tick, its stamp unchanged: its bytes are compared at every use until it is older.
TEST(SideFileCache, ARecentFileIsComparedByItsBytesAndAChangeOfTheSameSizeIsSeen) {
  const fs::path dir = scratch("recent");
  const fs::path file = dir / "a.txt";
  write(file, "alpha");
  SideFileCache cache;  // the default margin: the file just written is not trusted
  CountingParse parse;
  const auto first = get(cache, file, parse);
  const auto second = get(cache, file, parse);
  EXPECT_EQ(second.get(), first.get());
  EXPECT_EQ(parse.calls, 1);  // read again, the same bytes: not parsed again
  SideFileCache::Stats stats = cache.stats();
  EXPECT_EQ(stats.verified, 1u);
  EXPECT_EQ(stats.files_read, 2u);

  write(file, "omega");  // the same size, maybe the same modification time
  const auto third = get(cache, file, parse);
  EXPECT_EQ(*third, "omega");
  EXPECT_EQ(parse.calls, 2);
  fs::remove_all(dir);
}

TEST(SideFileCache, AnErrorIsThrownAndNothingIsKept) {
  const fs::path dir = scratch("errors");
  const fs::path file = dir / "missing.txt";
  SideFileCache cache(0.0);
  CountingParse parse;
  EXPECT_THROW(get(cache, file, parse), InputError);
  write(file, "late");
  EXPECT_EQ(*get(cache, file, parse), "late");
  EXPECT_EQ(cache.stats().parses, 1u);
  // A parse that throws keeps nothing either: the next use parses again.
  int throws = 0;
  const auto failing = [&](const std::vector<std::string>&) -> std::string {
    ++throws;
    throw InputError(file.string(), 1, "", "bad");
  };
  for (int i = 0; i < 2; ++i)
    EXPECT_THROW((cache.get<std::string>("failing", {file.string()}, "test file", failing)),
                 InputError);
  EXPECT_EQ(throws, 2);
  fs::remove_all(dir);
}

// Config loading: two parses of a config with a profile folder share one library; a profile
// removed from the folder is a change (the folder is listed at every use).
TEST(SideFileCache, RunConfigsParsedWithOneCacheShareTheirProfilesUntilTheFolderChanges) {
  const fs::path dir = scratch("profiles");
  const fs::path profiles = dir / "v100";
  fs::copy(fs::path(CLUSTERSIM_SOURCE_DIR) / "profiles" / "v100", profiles);
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(profiles))
    files += entry.path().extension() == ".json";
  ASSERT_GT(files, 1u);
  const std::string text =
      "[cluster]\nnodes = 2\ngpus_per_node = 8\ngpu_type = \"v100\"\ncpus_per_node = 24\n"
      "mem_gb_per_node = 500\n"
      "[workload]\ngenerator = \"synergy\"\njobs = 20\n"
      "[throughput]\nmodel = \"profile\"\nprofiles = \"" +
      profiles.string() + "\"\n";
  const toml::table table = toml::parse(text);
  SideFileCache cache(0.0);
  const RunConfig a = parse_run_config(table, "t.toml", dir.string(), &cache);
  const RunConfig b = parse_run_config(table, "t.toml", dir.string(), &cache);
  ASSERT_TRUE(a.profiles);
  EXPECT_EQ(a.profiles.get(), b.profiles.get());
  SideFileCache::Stats stats = cache.stats();
  EXPECT_EQ(stats.parses, 1u);
  EXPECT_EQ(stats.hits, 1u);
  EXPECT_EQ(stats.files_read, files);  // each profile read once
  // Without a cache: the same library, read from disk.
  const RunConfig uncached = parse_run_config(table, "t.toml", dir.string());
  EXPECT_EQ(uncached.profiles->size(), a.profiles->size());

  fs::remove(profiles / "resnet50.json");
  const RunConfig c = parse_run_config(table, "t.toml", dir.string(), &cache);
  EXPECT_NE(c.profiles.get(), a.profiles.get());
  EXPECT_EQ(c.profiles->size() + 1, a.profiles->size());
  EXPECT_EQ(cache.stats().parses, 2u);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace clustersim
