// The CPU preprocessing pipelines: output shapes and values, and the skip without JPEG.
#include "cpu_prep.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

namespace ckbench {
namespace {

TEST(CpuPrep, TextProducesIdsAndMask) {
  const Corpus corpus = make_corpus(InputKind::kText, 4, 1);
  ASSERT_EQ(corpus.size(), 4u);
  auto prep = make_preprocessor(InputKind::kText, 1);
  std::vector<std::uint8_t> out(prep_output_bytes(InputKind::kText));
  prep->run(corpus[0].data(), corpus[0].size(), out.data());
  std::int32_t ids[256];
  std::memcpy(ids, out.data(), sizeof ids);
  EXPECT_EQ(ids[0], 1);    // [CLS]
  EXPECT_EQ(ids[128], 1);  // mask of the first token
  int tokens = 0;
  for (int i = 0; i < 128; ++i) tokens += ids[128 + i];
  EXPECT_GT(tokens, 20);
}

TEST(CpuPrep, AudioOutputsAreNormalized) {
  for (InputKind kind : {InputKind::kAudioSpectrogram, InputKind::kAudioWaveform}) {
    const Corpus corpus = make_corpus(kind, 1, 3);
    auto prep = make_preprocessor(kind, 1);
    std::vector<std::uint8_t> out(prep_output_bytes(kind));
    prep->run(corpus[0].data(), corpus[0].size(), out.data());
    const auto* f = reinterpret_cast<const float*>(out.data());
    const std::size_t n = out.size() / sizeof(float);
    double sum = 0, peak = 0;
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_TRUE(std::isfinite(f[i]));
      sum += f[i];
      peak = std::max(peak, static_cast<double>(std::fabs(f[i])));
    }
    if (kind == InputKind::kAudioSpectrogram) {
      EXPECT_NEAR(sum / n, 0.0, 1e-3);  // mean/variance normalized
    } else {
      EXPECT_NEAR(peak, 1.0, 1e-6);  // peak normalized
    }
  }
}

TEST(CpuPrep, TabularParsesRecords) {
  const char rec[] = "0000042,0001234,1\n      ";
  auto prep = make_preprocessor(InputKind::kTabular, 1);
  std::int32_t out[3];
  prep->run(reinterpret_cast<const std::uint8_t*>(rec), 24, reinterpret_cast<std::uint8_t*>(out));
  EXPECT_EQ(out[0], 42);
  EXPECT_EQ(out[1], 1234);
  EXPECT_EQ(out[2], 1);
}

TEST(CpuPrep, ImagePipelineOrSkip) {
  if (!jpeg_available()) {
    EXPECT_THROW(make_corpus(InputKind::kImage, 1, 1), std::runtime_error);
    GTEST_SKIP() << "built without libjpeg-turbo: the JPEG pipeline reports 'skipped'";
  }
  const Corpus corpus = make_corpus(InputKind::kImage, 2, 5);
  // Photo-like JPEGs of roughly ImageNet's average size.
  EXPECT_GT(corpus[0].size(), 20000u);
  EXPECT_EQ(corpus[0][0], 0xFF);
  EXPECT_EQ(corpus[0][1], 0xD8);
  auto prep = make_preprocessor(InputKind::kImage, 1);
  std::vector<std::uint8_t> out(prep_output_bytes(InputKind::kImage));
  ASSERT_EQ(out.size(), 3u * 224 * 224 * 4);
  prep->run(corpus[0].data(), corpus[0].size(), out.data());
  const auto* f = reinterpret_cast<const float*>(out.data());
  for (std::size_t i = 0; i < out.size() / 4; i += 97) {
    ASSERT_TRUE(std::isfinite(f[i]));
    EXPECT_GT(f[i], -2.2f);  // (0 - 0.485) / 0.229
    EXPECT_LT(f[i], 2.7f);   // (1 - 0.406) / 0.225
  }
  // Corrupt data is an error, not a crash.
  std::vector<std::uint8_t> bad(corpus[0].begin(), corpus[0].begin() + 100);
  EXPECT_THROW(prep->run(bad.data(), bad.size(), out.data()), std::runtime_error);
}

// A real-image corpus: the JPEG files of a directory in name order, other files ignored, and
// errors that name the directory or file.
TEST(CpuPrep, LoadsAJpegCorpusFromADirectory) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(::testing::TempDir()) / "ckbench_corpus_test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto write = [&](const std::string& name, const std::string& bytes) {
    std::ofstream(dir / name, std::ios::binary) << bytes;
  };
  const std::string soi = "\xFF\xD8\xFF\xE0";
  write("b.jpg", soi + "second");
  write("a.JPEG", soi + "first");
  write("c.jpeg", soi + "third!");
  write("notes.txt", "not an image");
  Corpus corpus = load_jpeg_corpus(dir.string());
  ASSERT_EQ(corpus.size(), 3u);
  EXPECT_EQ(std::string(corpus[0].begin() + 4, corpus[0].end()), "first");
  EXPECT_EQ(std::string(corpus[1].begin() + 4, corpus[1].end()), "second");
  EXPECT_EQ(std::string(corpus[2].begin() + 4, corpus[2].end()), "third!");
  EXPECT_EQ(load_jpeg_corpus(dir.string(), 2).size(), 2u);

  write("d.jpg", "GIF89a");
  try {
    load_jpeg_corpus(dir.string());
    ADD_FAILURE() << "a .jpg without a JPEG header was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("d.jpg"), std::string::npos) << e.what();
  }
  fs::remove_all(dir);
  fs::create_directories(dir);
  try {
    load_jpeg_corpus(dir.string());
    ADD_FAILURE() << "an empty directory was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("no *.jpg"), std::string::npos) << e.what();
  }
  EXPECT_THROW(load_jpeg_corpus((dir / "missing").string()), std::runtime_error);
  fs::remove_all(dir);
}

TEST(CpuPrep, TrialMeasuresARate) {
  const Corpus corpus = make_corpus(InputKind::kTabular, 8, 1);
  EXPECT_GT(prep_trial(InputKind::kTabular, corpus, 2, 1000, 1), 0.0);
  EXPECT_THROW(prep_trial(InputKind::kTabular, {}, 1, 1, 1), std::invalid_argument);
}

}  // namespace
}  // namespace ckbench
