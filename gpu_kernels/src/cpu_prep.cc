#include "cpu_prep.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <unordered_map>

#ifdef CKBENCH_HAVE_JPEG
// jpeglib.h needs FILE and size_t declared first.
#include <jpeglib.h>
#include <setjmp.h>
#endif

namespace ckbench {

namespace {

constexpr int kCrop = 224;
constexpr int kSeq = 128;
constexpr int kSpecBins = 161;
constexpr int kSpecFrames = 1500;  // 15 s at a 10 ms hop
constexpr int kAudioRate = 16000;
constexpr int kWaveIn = 44100;
constexpr int kWaveOut = 8000;
constexpr int kWaveSeconds = 4;

// ---- JPEG ----------------------------------------------------------------------------------

#ifdef CKBENCH_HAVE_JPEG
struct JpegError {
  jpeg_error_mgr mgr;
  jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

void on_jpeg_error(j_common_ptr cinfo) {
  auto* err = reinterpret_cast<JpegError*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, err->message);
  longjmp(err->jump, 1);
}

std::vector<std::uint8_t> encode_jpeg(const std::vector<std::uint8_t>& rgb, int w, int h,
                                      int quality) {
  jpeg_compress_struct cinfo;
  JpegError err;
  cinfo.err = jpeg_std_error(&err.mgr);
  err.mgr.error_exit = on_jpeg_error;
  unsigned char* buffer = nullptr;
  unsigned long size = 0;
  if (setjmp(err.jump)) {
    jpeg_destroy_compress(&cinfo);
    std::free(buffer);
    throw std::runtime_error(std::string("JPEG encode: ") + err.message);
  }
  jpeg_create_compress(&cinfo);
  jpeg_mem_dest(&cinfo, &buffer, &size);
  cinfo.image_width = static_cast<JDIMENSION>(w);
  cinfo.image_height = static_cast<JDIMENSION>(h);
  cinfo.input_components = 3;
  cinfo.in_color_space = JCS_RGB;
  jpeg_set_defaults(&cinfo);
  jpeg_set_quality(&cinfo, quality, TRUE);
  jpeg_start_compress(&cinfo, TRUE);
  while (cinfo.next_scanline < cinfo.image_height) {
    JSAMPROW row =
        const_cast<JSAMPROW>(&rgb[static_cast<std::size_t>(cinfo.next_scanline) * w * 3]);
    jpeg_write_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_compress(&cinfo);
  std::vector<std::uint8_t> out(buffer, buffer + size);
  jpeg_destroy_compress(&cinfo);
  std::free(buffer);
  return out;
}

// Decodes to RGB; returns false (with `error`) on corrupt data.
bool decode_jpeg(const std::uint8_t* data, std::size_t size, std::vector<std::uint8_t>& rgb, int& w,
                 int& h, std::string& error) {
  jpeg_decompress_struct cinfo;
  JpegError err;
  cinfo.err = jpeg_std_error(&err.mgr);
  err.mgr.error_exit = on_jpeg_error;
  if (setjmp(err.jump)) {
    jpeg_destroy_decompress(&cinfo);
    error = err.message;
    return false;
  }
  jpeg_create_decompress(&cinfo);
  jpeg_mem_src(&cinfo, const_cast<unsigned char*>(data), static_cast<unsigned long>(size));
  jpeg_read_header(&cinfo, TRUE);
  cinfo.out_color_space = JCS_RGB;
  jpeg_start_decompress(&cinfo);
  w = static_cast<int>(cinfo.output_width);
  h = static_cast<int>(cinfo.output_height);
  rgb.resize(static_cast<std::size_t>(w) * h * 3);
  while (cinfo.output_scanline < cinfo.output_height) {
    JSAMPROW row = &rgb[static_cast<std::size_t>(cinfo.output_scanline) * w * 3];
    jpeg_read_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  return true;
}
#endif

// A photo-like test image: smooth colour fields, edges and texture noise (compresses at q90 to
// about the size of an average ImageNet JPEG).
std::vector<std::uint8_t> synthetic_photo(int w, int h, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  std::normal_distribution<float> noise(0.0f, 14.0f);
  const float fx = 2.0f + 6.0f * u(rng), fy = 2.0f + 6.0f * u(rng), phase = 6.28f * u(rng);
  const float base[3] = {60 + 140 * u(rng), 60 + 140 * u(rng), 60 + 140 * u(rng)};
  const int cx = static_cast<int>(w * u(rng)), cy = static_cast<int>(h * u(rng));
  const int radius = static_cast<int>(std::min(w, h) * (0.15f + 0.3f * u(rng)));
  std::vector<std::uint8_t> rgb(static_cast<std::size_t>(w) * h * 3);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      const float s = std::sin(fx * x / w * 6.28f + phase) * std::cos(fy * y / h * 6.28f);
      const bool inside = (x - cx) * (x - cx) + (y - cy) * (y - cy) < radius * radius;
      for (int c = 0; c < 3; ++c) {
        float v = base[c] + 50.0f * s + (inside ? 45.0f * (c - 1) : 0.0f) + noise(rng);
        rgb[(static_cast<std::size_t>(y) * w + x) * 3 + c] =
            static_cast<std::uint8_t>(std::clamp(v, 0.0f, 255.0f));
      }
    }
  }
  return rgb;
}

// ---- Text ----------------------------------------------------------------------------------

std::vector<std::string> vocabulary() {
  // 30k pseudo-words: consonant/vowel syllables, deterministic.
  static const char* kSyll[] = {"ka", "to", "ri",  "ne",  "sa",  "mu", "lo", "pe", "di", "ga",
                                "ve", "zo", "chi", "bra", "sto", "en", "al", "or", "th", "qu"};
  std::vector<std::string> words;
  std::mt19937 rng(7);
  for (int i = 0; i < 30000; ++i) {
    std::string w;
    const int n = 1 + static_cast<int>(rng() % 4);
    for (int j = 0; j < n; ++j) w += kSyll[rng() % 20];
    words.push_back(w);
  }
  return words;
}

class TextPrep final : public Preprocessor {
 public:
  TextPrep() {
    const auto words = vocabulary();
    for (std::size_t i = 0; i < words.size(); ++i)
      vocab_.emplace(words[i], static_cast<int>(i) + 4);
  }
  void run(const std::uint8_t* data, std::size_t size, std::uint8_t* out) override {
    auto* ids = reinterpret_cast<std::int32_t*>(out);
    std::int32_t* mask = ids + kSeq;
    int n = 0;
    ids[n++] = 1;  // [CLS]
    word_.clear();
    auto flush = [&]() {
      if (word_.empty() || n >= kSeq - 1) {
        word_.clear();
        return;
      }
      auto it = vocab_.find(word_);
      ids[n++] = it != vocab_.end() ? it->second : 3;  // [UNK]
      word_.clear();
    };
    for (std::size_t i = 0; i < size; ++i) {
      const unsigned char c = data[i];
      if (std::isalnum(c)) {
        word_.push_back(static_cast<char>(std::tolower(c)));
      } else {
        flush();
      }
    }
    flush();
    ids[n++] = 2;  // [SEP]
    for (int i = 0; i < kSeq; ++i) {
      mask[i] = i < n ? 1 : 0;
      if (i >= n) ids[i] = 0;
    }
  }

 private:
  std::unordered_map<std::string, int> vocab_;
  std::string word_;
};

// ---- Audio ---------------------------------------------------------------------------------

void fft(std::vector<std::complex<float>>& a) {
  const std::size_t n = a.size();
  for (std::size_t i = 1, j = 0; i < n; ++i) {
    std::size_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(a[i], a[j]);
  }
  for (std::size_t len = 2; len <= n; len <<= 1) {
    const float ang = -2.0f * 3.14159265358979f / static_cast<float>(len);
    const std::complex<float> wl(std::cos(ang), std::sin(ang));
    for (std::size_t i = 0; i < n; i += len) {
      std::complex<float> w(1.0f, 0.0f);
      for (std::size_t j = 0; j < len / 2; ++j) {
        const std::complex<float> u = a[i + j], v = a[i + j + len / 2] * w;
        a[i + j] = u + v;
        a[i + j + len / 2] = u - v;
        w *= wl;
      }
    }
  }
}

class SpectrogramPrep final : public Preprocessor {
 public:
  SpectrogramPrep() : window_(320), buf_(512) {
    for (int i = 0; i < 320; ++i) window_[i] = 0.54f - 0.46f * std::cos(2 * 3.14159265f * i / 319);
  }
  void run(const std::uint8_t* data, std::size_t size, std::uint8_t* out) override {
    const std::size_t samples = size > 44 ? (size - 44) / 2 : 0;
    pcm_.resize(samples);
    const auto* s16 = reinterpret_cast<const std::int16_t*>(data + 44);
    for (std::size_t i = 0; i < samples; ++i) pcm_[i] = s16[i] / 32768.0f;
    auto* spec = reinterpret_cast<float*>(out);
    double sum = 0.0, sq = 0.0;
    for (int f = 0; f < kSpecFrames; ++f) {
      const std::size_t start = static_cast<std::size_t>(f) * 160;
      for (int i = 0; i < 512; ++i) {
        const float x = i < 320 && start + i < samples ? pcm_[start + i] * window_[i] : 0.0f;
        buf_[i] = {x, 0.0f};
      }
      fft(buf_);
      for (int b = 0; b < kSpecBins; ++b) {
        // 161 output bins pooled from the 257 FFT bins.
        const int lo = b * 256 / kSpecBins, hi = std::max(lo + 1, (b + 1) * 256 / kSpecBins);
        float p = 0.0f;
        for (int k = lo; k < hi; ++k) p += std::norm(buf_[k]);
        const float v = std::log1p(p);
        spec[b * kSpecFrames + f] = v;
        sum += v;
        sq += static_cast<double>(v) * v;
      }
    }
    const double n = static_cast<double>(kSpecBins) * kSpecFrames;
    const float mean = static_cast<float>(sum / n);
    const float inv =
        static_cast<float>(1.0 / std::sqrt(std::max(1e-12, sq / n - (sum / n) * (sum / n))));
    for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i) spec[i] = (spec[i] - mean) * inv;
  }

 private:
  std::vector<float> window_, pcm_;
  std::vector<std::complex<float>> buf_;
};

class WaveformPrep final : public Preprocessor {
 public:
  WaveformPrep() {
    // Windowed-sinc low-pass at the output Nyquist (4 kHz), 32 taps each side.
    const double cutoff = 0.5 * kWaveOut / kWaveIn;
    for (int i = -kTaps; i <= kTaps; ++i) {
      const double x = i == 0
                           ? 2 * cutoff
                           : std::sin(2 * 3.14159265358979 * cutoff * i) / (3.14159265358979 * i);
      const double w = 0.42 + 0.5 * std::cos(3.14159265358979 * i / kTaps) +
                       0.08 * std::cos(2 * 3.14159265358979 * i / kTaps);
      taps_.push_back(static_cast<float>(x * w));
    }
  }
  void run(const std::uint8_t* data, std::size_t size, std::uint8_t* out) override {
    const std::size_t frames = size > 44 ? (size - 44) / 4 : 0;
    mono_.resize(frames);
    const auto* s16 = reinterpret_cast<const std::int16_t*>(data + 44);
    for (std::size_t i = 0; i < frames; ++i) mono_[i] = (s16[2 * i] + s16[2 * i + 1]) / 65536.0f;
    auto* y = reinterpret_cast<float*>(out);
    const int n_out = kWaveOut * kWaveSeconds;
    float peak = 1e-6f;
    for (int j = 0; j < n_out; ++j) {
      const double pos = static_cast<double>(j) * kWaveIn / kWaveOut;
      const long center = static_cast<long>(pos);
      float acc = 0.0f;
      for (int t = -kTaps; t <= kTaps; ++t) {
        const long idx = center + t;
        if (idx >= 0 && idx < static_cast<long>(frames)) acc += mono_[idx] * taps_[t + kTaps];
      }
      y[j] = acc;
      peak = std::max(peak, std::fabs(acc));
    }
    for (int j = 0; j < n_out; ++j) y[j] /= peak;
  }

 private:
  static constexpr int kTaps = 32;
  std::vector<float> taps_, mono_;
};

class TabularPrep final : public Preprocessor {
 public:
  void run(const std::uint8_t* data, std::size_t size, std::uint8_t* out) override {
    // Record: "uuuuuuu,iiiiiii,l\n" style fixed 24-byte text; parse three integers.
    std::int32_t v[3] = {0, 0, 0};
    int field = 0;
    for (std::size_t i = 0; i < size && field < 3; ++i) {
      const char c = static_cast<char>(data[i]);
      if (c >= '0' && c <= '9') {
        v[field] = v[field] * 10 + (c - '0');
      } else if (c == ',' || c == '\n') {
        ++field;
      }
    }
    std::memcpy(out, v, sizeof v);
  }
};

#ifdef CKBENCH_HAVE_JPEG
class ImagePrep final : public Preprocessor {
 public:
  explicit ImagePrep(std::uint32_t seed) : rng_(seed) {}
  void run(const std::uint8_t* data, std::size_t size, std::uint8_t* out) override {
    int w = 0, h = 0;
    std::string error;
    if (!decode_jpeg(data, size, rgb_, w, h, error)) throw std::runtime_error("JPEG: " + error);
    // Random-resized-crop (torchvision defaults: scale 0.08..1, ratio 3/4..4/3, 10 tries).
    std::uniform_real_distribution<double> u(0.0, 1.0);
    int cw = std::min(w, h), ch = cw, x0 = (w - cw) / 2, y0 = (h - ch) / 2;
    const double area = static_cast<double>(w) * h;
    for (int attempt = 0; attempt < 10; ++attempt) {
      const double target = area * (0.08 + 0.92 * u(rng_));
      const double ratio = std::exp(std::log(3.0 / 4.0) + u(rng_) * std::log(16.0 / 9.0));
      const int tw = static_cast<int>(std::round(std::sqrt(target * ratio)));
      const int th = static_cast<int>(std::round(std::sqrt(target / ratio)));
      if (tw > 0 && th > 0 && tw <= w && th <= h) {
        cw = tw;
        ch = th;
        x0 = static_cast<int>(u(rng_) * (w - tw + 1));
        y0 = static_cast<int>(u(rng_) * (h - th + 1));
        break;
      }
    }
    const bool flip = u(rng_) < 0.5;
    static const float kMean[3] = {0.485f, 0.456f, 0.406f};
    static const float kStd[3] = {0.229f, 0.224f, 0.225f};
    auto* dst = reinterpret_cast<float*>(out);
    const float sx = static_cast<float>(cw) / kCrop, sy = static_cast<float>(ch) / kCrop;
    for (int y = 0; y < kCrop; ++y) {
      const float fy = std::max(0.0f, (y + 0.5f) * sy - 0.5f);
      const int iy = std::min(static_cast<int>(fy), ch - 1), iy1 = std::min(iy + 1, ch - 1);
      const float wy = fy - iy;
      for (int x = 0; x < kCrop; ++x) {
        const int ox = flip ? kCrop - 1 - x : x;
        const float fx = std::max(0.0f, (x + 0.5f) * sx - 0.5f);
        const int ix = std::min(static_cast<int>(fx), cw - 1), ix1 = std::min(ix + 1, cw - 1);
        const float wx = fx - ix;
        const std::uint8_t* p00 = &rgb_[(static_cast<std::size_t>(y0 + iy) * w + x0 + ix) * 3];
        const std::uint8_t* p01 = &rgb_[(static_cast<std::size_t>(y0 + iy) * w + x0 + ix1) * 3];
        const std::uint8_t* p10 = &rgb_[(static_cast<std::size_t>(y0 + iy1) * w + x0 + ix) * 3];
        const std::uint8_t* p11 = &rgb_[(static_cast<std::size_t>(y0 + iy1) * w + x0 + ix1) * 3];
        for (int c = 0; c < 3; ++c) {
          const float v =
              (p00[c] * (1 - wx) + p01[c] * wx) * (1 - wy) + (p10[c] * (1 - wx) + p11[c] * wx) * wy;
          dst[(static_cast<std::size_t>(c) * kCrop + y) * kCrop + ox] =
              (v / 255.0f - kMean[c]) / kStd[c];
        }
      }
    }
  }

 private:
  std::mt19937 rng_;
  std::vector<std::uint8_t> rgb_;
};
#endif

std::vector<std::uint8_t> wav(const std::vector<std::int16_t>& pcm) {
  std::vector<std::uint8_t> out(44 + pcm.size() * 2, 0);
  std::memcpy(out.data(), "RIFF", 4);
  std::memcpy(out.data() + 8, "WAVEfmt ", 8);
  std::memcpy(out.data() + 36, "data", 4);
  std::memcpy(out.data() + 44, pcm.data(), pcm.size() * 2);
  return out;
}

}  // namespace

bool jpeg_available() {
#ifdef CKBENCH_HAVE_JPEG
  return true;
#else
  return false;
#endif
}

std::size_t prep_output_bytes(InputKind kind) {
  switch (kind) {
    case InputKind::kImage:
      return 3ull * kCrop * kCrop * sizeof(float);
    case InputKind::kText:
      return 2ull * kSeq * sizeof(std::int32_t);
    case InputKind::kAudioSpectrogram:
      return static_cast<std::size_t>(kSpecBins) * kSpecFrames * sizeof(float);
    case InputKind::kAudioWaveform:
      return static_cast<std::size_t>(kWaveOut) * kWaveSeconds * sizeof(float);
    case InputKind::kTabular:
      return 3 * sizeof(std::int32_t);
  }
  return 0;
}

Corpus make_corpus(InputKind kind, int n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  Corpus corpus;
  corpus.reserve(static_cast<std::size_t>(n));
  switch (kind) {
    case InputKind::kImage: {
#ifdef CKBENCH_HAVE_JPEG
      for (int i = 0; i < n; ++i) {
        const int w = 400 + static_cast<int>(rng() % 200), h = 300 + static_cast<int>(rng() % 150);
        corpus.push_back(encode_jpeg(synthetic_photo(w, h, rng), w, h, 90));
      }
      break;
#else
      throw std::runtime_error("JPEG support was not compiled in (libjpeg-turbo not found)");
#endif
    }
    case InputKind::kText: {
      const auto words = vocabulary();
      std::uniform_real_distribution<double> u(0.0, 1.0);
      for (int i = 0; i < n; ++i) {
        std::string s;
        while (s.size() < 300) {
          // Zipf-like: frequent words are common.
          const auto idx = static_cast<std::size_t>(std::pow(u(rng), 3.0) * words.size());
          s += (rng() % 17 == 0 ? "Unknownword" : words[idx]) + (rng() % 9 == 0 ? ". " : " ");
        }
        corpus.emplace_back(s.begin(), s.end());
      }
      break;
    }
    case InputKind::kAudioSpectrogram: {
      std::normal_distribution<float> noise(0.0f, 2000.0f);
      for (int i = 0; i < n; ++i) {
        std::vector<std::int16_t> pcm(static_cast<std::size_t>(kAudioRate) * 15);
        const float f0 = 100.0f + static_cast<float>(rng() % 200);
        for (std::size_t t = 0; t < pcm.size(); ++t) {
          const float v = 6000.0f * std::sin(2 * 3.14159265f * f0 * t / kAudioRate) + noise(rng);
          pcm[t] = static_cast<std::int16_t>(std::clamp(v, -32768.0f, 32767.0f));
        }
        corpus.push_back(wav(pcm));
      }
      break;
    }
    case InputKind::kAudioWaveform: {
      std::normal_distribution<float> noise(0.0f, 3000.0f);
      for (int i = 0; i < n; ++i) {
        std::vector<std::int16_t> pcm(static_cast<std::size_t>(kWaveIn) * kWaveSeconds * 2);
        for (std::size_t t = 0; t < pcm.size(); ++t) {
          pcm[t] = static_cast<std::int16_t>(std::clamp(noise(rng), -32768.0f, 32767.0f));
        }
        corpus.push_back(wav(pcm));
      }
      break;
    }
    case InputKind::kTabular: {
      for (int i = 0; i < n; ++i) {
        char rec[32];
        std::snprintf(rec, sizeof rec, "%07u,%07u,%u\n", static_cast<unsigned>(rng() % 138493),
                      static_cast<unsigned>(rng() % 26744), static_cast<unsigned>(rng() % 2));
        corpus.emplace_back(rec, rec + 24);
      }
      break;
    }
  }
  return corpus;
}

Corpus load_jpeg_corpus(const std::string& dir, std::size_t max_files) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw std::runtime_error("corpus directory " + dir + ": not a directory");
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (!entry.is_regular_file()) continue;
    std::string ext = entry.path().extension().string();
    for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (ext == ".jpg" || ext == ".jpeg") files.push_back(entry.path());
  }
  if (ec) throw std::runtime_error("corpus directory " + dir + ": " + ec.message());
  if (files.empty()) throw std::runtime_error("corpus directory " + dir + ": no *.jpg or *.jpeg file");
  std::sort(files.begin(), files.end());
  if (max_files > 0 && files.size() > max_files) files.resize(max_files);
  Corpus corpus;
  corpus.reserve(files.size());
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) throw std::runtime_error("cannot read " + f.string());
    if (bytes.size() < 4 || bytes[0] != 0xFF || bytes[1] != 0xD8) {
      throw std::runtime_error(f.string() + ": not a JPEG file (no SOI marker)");
    }
    corpus.push_back(std::move(bytes));
  }
  return corpus;
}

std::unique_ptr<Preprocessor> make_preprocessor(InputKind kind, std::uint32_t seed) {
  switch (kind) {
    case InputKind::kImage:
#ifdef CKBENCH_HAVE_JPEG
      return std::make_unique<ImagePrep>(seed);
#else
      (void)seed;
      throw std::runtime_error("JPEG support was not compiled in (libjpeg-turbo not found)");
#endif
    case InputKind::kText:
      return std::make_unique<TextPrep>();
    case InputKind::kAudioSpectrogram:
      return std::make_unique<SpectrogramPrep>();
    case InputKind::kAudioWaveform:
      return std::make_unique<WaveformPrep>();
    case InputKind::kTabular:
      return std::make_unique<TabularPrep>();
  }
  throw std::invalid_argument("unknown input kind");
}

double prep_trial(InputKind kind, const Corpus& corpus, int threads, int per_thread,
                  std::uint32_t seed) {
  if (corpus.empty() || threads < 1 || per_thread < 1) {
    throw std::invalid_argument("prep_trial: empty corpus or no work");
  }
  // Preprocessors are built before the clock starts (vocabulary tables, filters).
  std::vector<std::unique_ptr<Preprocessor>> preps;
  for (int t = 0; t < threads; ++t) preps.push_back(make_preprocessor(kind, seed + t));
  const std::size_t out_bytes = prep_output_bytes(kind);
  std::vector<std::vector<std::uint8_t>> outs(threads, std::vector<std::uint8_t>(out_bytes));
  std::vector<std::thread> pool;
  std::vector<std::string> errors(threads);
  const auto start = std::chrono::steady_clock::now();
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t]() {
      try {
        std::mt19937 rng(seed * 7919u + t);
        for (int i = 0; i < per_thread; ++i) {
          const auto& s = corpus[rng() % corpus.size()];
          preps[t]->run(s.data(), s.size(), outs[t].data());
        }
      } catch (const std::exception& e) {
        errors[t] = e.what();
      }
    });
  }
  for (auto& th : pool) th.join();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (const auto& e : errors) {
    if (!e.empty()) throw std::runtime_error(e);
  }
  return static_cast<double>(threads) * per_thread / seconds;
}

}  // namespace ckbench
