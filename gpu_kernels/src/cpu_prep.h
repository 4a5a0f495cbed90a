// CPU input pipelines of the model classes (plain C++; no CUDA): a synthetic encoded corpus
// per input kind and the per-sample preprocessing a training data loader runs on it.
//   image:  JPEG decode (libjpeg-turbo; optional at build time) + random-resized-crop to
//           224x224 (bilinear) + random horizontal flip + normalize to float CHW
//   text:   lowercase + split + vocabulary lookup + truncate/pad to 128 ids + attention mask
//   audio (spectrogram): PCM -> float -> Hamming-windowed 512-point FFT every 10 ms ->
//           log power in 161 bins -> per-utterance mean/variance normalization
//   audio (waveform): 44.1 kHz stereo PCM -> mono -> windowed-sinc resample to 8 kHz ->
//           peak normalization
//   tabular: parse (user, item, label) records
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ckbench/models.h"

namespace ckbench {

// True when the JPEG pipeline was compiled in (libjpeg-turbo found at build time).
bool jpeg_available();

using Corpus = std::vector<std::vector<std::uint8_t>>;

// `n` encoded samples of the kind (deterministic in `seed`). Image samples are real JPEG files
// (about 500x375, quality 90); throws std::runtime_error for images without JPEG support.
Corpus make_corpus(InputKind kind, int n, std::uint32_t seed);

// The JPEG files (*.jpg, *.jpeg, any case) of `dir`, in name order, at most `max_files` of them
// (0: all): a real image corpus in place of the synthetic one. Throws std::runtime_error naming
// the directory when it cannot be read or holds no JPEG.
Corpus load_jpeg_corpus(const std::string& dir, std::size_t max_files = 0);

// Bytes of one preprocessed sample (what is copied to the GPU).
std::size_t prep_output_bytes(InputKind kind);

// Per-thread preprocessing state (scratch buffers, random generator).
class Preprocessor {
 public:
  virtual ~Preprocessor() = default;
  // Preprocesses one encoded sample into `out` (prep_output_bytes(kind) bytes).
  virtual void run(const std::uint8_t* data, std::size_t size, std::uint8_t* out) = 0;
};
std::unique_ptr<Preprocessor> make_preprocessor(InputKind kind, std::uint32_t seed);

// Throughput of `threads` threads preprocessing random corpus samples: one trial = every
// thread processes `per_thread` samples; returns samples/s of one trial.
double prep_trial(InputKind kind, const Corpus& corpus, int threads, int per_thread,
                  std::uint32_t seed);

}  // namespace ckbench
