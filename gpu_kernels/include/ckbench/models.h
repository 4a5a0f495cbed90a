// The model zoo as the benchmarks see it: each model's training step as GEMM-shaped layers
// (convolutions as implicit GEMMs: M = output pixels, N = output channels, K = Cin*kh*kw),
// depthwise convolutions, recurrent steps and memory-bound gathers, plus its input pipeline
// (what one sample costs the CPUs and the storage). Host-only, header-only.
//
// The shapes follow the published architectures (torchvision ResNet/VGG/AlexNet/MobileNetV2/
// ShuffleNetV2 at 224x224; Transformer-base; BERT-base; GNMT 4+4 LSTM-1024; DeepSpeech2 with
// 5 bi-LSTM-1024; M5 on 8 kHz audio; NCF) and are summed to FLOPs per sample, which the tests
// compare with the published totals.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace ckbench {

enum class LayerKind {
  kGemm,       // dense or implicit-GEMM conv: per launch M = batch * m_per_sample
  kRecurrent,  // `steps` sequential GEMMs of M = batch (a recurrent cell's hidden-state product)
  kDepthwise,  // depthwise 3x3 conv on an h x w x channels map (stride 1 or 2: h, w are output)
  kGather,     // memory-bound: `bytes_per_sample` read and written (embedding lookups)
};

struct Layer {
  LayerKind kind = LayerKind::kGemm;
  std::int64_t m_per_sample = 1;      // kGemm: rows per sample; kDepthwise: output h
  std::int64_t n = 0;                 // output features; kDepthwise: output w
  std::int64_t k = 0;                 // reduction length; kDepthwise: channels
  std::int64_t repeat = 1;            // identical layers in sequence
  std::int64_t steps = 1;             // kRecurrent: sequential time steps
  std::int64_t bytes_per_sample = 0;  // kGather

  // Forward multiply-accumulates per sample (x2 for FLOPs; training ~ 3x forward).
  double macs_per_sample() const {
    switch (kind) {
      case LayerKind::kGemm:
        return static_cast<double>(m_per_sample) * n * k * repeat;
      case LayerKind::kRecurrent:
        return static_cast<double>(n) * k * steps * repeat;
      case LayerKind::kDepthwise:
        return 9.0 * m_per_sample * n * k * repeat;
      case LayerKind::kGather:
        return 0.0;
    }
    return 0.0;
  }
};

enum class InputKind { kImage, kText, kAudioSpectrogram, kAudioWaveform, kTabular };

inline const char* to_string(InputKind k) {
  switch (k) {
    case InputKind::kImage:
      return "image (JPEG decode + random-resized-crop + flip + normalize)";
    case InputKind::kText:
      return "text (tokenize + vocabulary lookup + pad)";
    case InputKind::kAudioSpectrogram:
      return "audio (PCM -> STFT -> log-mel -> normalize)";
    case InputKind::kAudioWaveform:
      return "audio (PCM -> resample -> normalize)";
    case InputKind::kTabular:
      return "tabular (index parse)";
  }
  return "?";
}

struct ModelSpec {
  std::string name;  // canonical (matches profiles/<gpu>/<name>.json)
  std::vector<Layer> layers;
  int default_batch = 64;
  double published_gmacs = 0.0;  // forward GMACs per sample as published (for the tests)
  InputKind input = InputKind::kImage;
  std::int64_t stored_bytes_per_sample = 0;  // encoded sample as stored (JPEG, FLAC, text)
  std::int64_t device_bytes_per_sample = 0;  // preprocessed tensor copied to the GPU
  double dataset_gb = 0.0;                   // published training-set size
  std::string dataset;

  double macs_per_sample() const {
    double s = 0.0;
    for (const Layer& l : layers) s += l.macs_per_sample();
    return s;
  }
  std::int64_t parameters() const {
    std::int64_t p = 0;
    for (const Layer& l : layers) {
      if (l.kind == LayerKind::kGemm || l.kind == LayerKind::kRecurrent) p += l.n * l.k * l.repeat;
      if (l.kind == LayerKind::kDepthwise) p += 9 * l.k * l.repeat;
    }
    return p;
  }
};

namespace detail {

inline Layer conv(std::int64_t out_hw, std::int64_t cin, std::int64_t cout, std::int64_t kernel,
                  std::int64_t repeat = 1) {
  Layer l;
  l.m_per_sample = out_hw * out_hw;
  l.n = cout;
  l.k = cin * kernel * kernel;
  l.repeat = repeat;
  return l;
}
inline Layer dense(std::int64_t rows, std::int64_t in, std::int64_t out, std::int64_t repeat = 1) {
  Layer l;
  l.m_per_sample = rows;
  l.n = out;
  l.k = in;
  l.repeat = repeat;
  return l;
}
inline Layer depthwise(std::int64_t out_hw, std::int64_t channels, std::int64_t repeat = 1) {
  Layer l;
  l.kind = LayerKind::kDepthwise;
  l.m_per_sample = out_hw;
  l.n = out_hw;
  l.k = channels;
  l.repeat = repeat;
  return l;
}
inline Layer recurrent(std::int64_t hidden, std::int64_t gates_out, std::int64_t steps,
                       std::int64_t repeat) {
  Layer l;
  l.kind = LayerKind::kRecurrent;
  l.n = gates_out;
  l.k = hidden;
  l.steps = steps;
  l.repeat = repeat;
  return l;
}

inline void append(std::vector<Layer>& to, const std::vector<Layer>& from) {
  to.insert(to.end(), from.begin(), from.end());
}

// A transformer encoder layer over `seq` tokens: QKV, scores, context, output, FFN.
inline std::vector<Layer> transformer_layer(std::int64_t seq, std::int64_t d, std::int64_t ff,
                                            std::int64_t repeat, bool cross_attention = false) {
  std::vector<Layer> v = {dense(seq, d, 3 * d, repeat), dense(seq, d, seq, repeat),
                          dense(seq, seq, d, repeat),   dense(seq, d, d, repeat),
                          dense(seq, d, ff, repeat),    dense(seq, ff, d, repeat)};
  if (cross_attention) {
    append(v, {dense(seq, d, 2 * d, repeat), dense(seq, d, seq, repeat), dense(seq, seq, d, repeat),
               dense(seq, d, d, repeat)});
  }
  return v;
}

inline std::vector<Layer> resnet_basic(std::int64_t blocks[4]) {
  std::vector<Layer> v = {conv(112, 3, 64, 7)};
  const std::int64_t hw[4] = {56, 28, 14, 7};
  const std::int64_t ch[4] = {64, 128, 256, 512};
  for (int s = 0; s < 4; ++s) {
    const std::int64_t in = s == 0 ? 64 : ch[s - 1];
    v.push_back(conv(hw[s], in, ch[s], 3));                        // first conv of the stage
    v.push_back(conv(hw[s], ch[s], ch[s], 3, 2 * blocks[s] - 1));  // the rest
    if (s > 0) v.push_back(conv(hw[s], in, ch[s], 1));             // downsample shortcut
  }
  v.push_back(dense(1, 512, 1000));
  return v;
}

inline std::vector<Layer> resnet_bottleneck(std::int64_t blocks[4]) {
  std::vector<Layer> v = {conv(112, 3, 64, 7)};
  const std::int64_t hw[4] = {56, 28, 14, 7};
  const std::int64_t width[4] = {64, 128, 256, 512};
  for (int s = 0; s < 4; ++s) {
    const std::int64_t w = width[s], out = 4 * w;
    const std::int64_t in = s == 0 ? 64 : 4 * width[s - 1];
    const std::int64_t in_hw = s == 0 ? hw[s] : 2 * hw[s];
    // First block: 1x1 at the input resolution, strided 3x3, 1x1, projection shortcut.
    v.push_back(conv(in_hw, in, w, 1));
    v.push_back(conv(hw[s], w, w, 3));
    v.push_back(conv(hw[s], w, out, 1));
    v.push_back(conv(hw[s], in, out, 1));
    // The other blocks.
    v.push_back(conv(hw[s], out, w, 1, blocks[s] - 1));
    v.push_back(conv(hw[s], w, w, 3, blocks[s] - 1));
    v.push_back(conv(hw[s], w, out, 1, blocks[s] - 1));
  }
  v.push_back(dense(1, 2048, 1000));
  return v;
}

}  // namespace detail

inline std::vector<ModelSpec> model_zoo() {
  using namespace detail;
  constexpr std::int64_t kImageTensor = 3 * 224 * 224 * 4;  // float CHW, normalized on the CPU
  constexpr std::int64_t kImageNetJpeg = 115440;            // 147.9 GB / 1,281,167 images
  std::vector<ModelSpec> zoo;

  auto image = [&](ModelSpec m) {
    m.input = InputKind::kImage;
    m.stored_bytes_per_sample = kImageNetJpeg;
    m.device_bytes_per_sample = kImageTensor;
    m.dataset_gb = 147.9;
    m.dataset = "ImageNet-1k train";
    return m;
  };

  {
    std::int64_t b[4] = {2, 2, 2, 2};
    ModelSpec m;
    m.name = "resnet18";
    m.layers = resnet_basic(b);
    m.default_batch = 256;
    m.published_gmacs = 1.82;
    zoo.push_back(image(m));
  }
  {
    std::int64_t b[4] = {3, 4, 6, 3};
    ModelSpec m;
    m.name = "resnet50";
    m.layers = resnet_bottleneck(b);
    m.default_batch = 128;
    m.published_gmacs = 4.1;
    zoo.push_back(image(m));
  }
  {
    ModelSpec m;
    m.name = "mobilenet_v2";
    m.layers = {conv(112, 3, 32, 3)};
    // (expansion t, output channels c, blocks n, stride s) from the paper, 224x224 input.
    const std::int64_t cfg[7][4] = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                                    {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
    std::int64_t hw = 112, in = 32;
    for (const auto& c : cfg) {
      for (std::int64_t i = 0; i < c[2]; ++i) {
        const std::int64_t in_hw = hw;
        if (i == 0 && c[3] == 2) hw /= 2;
        const std::int64_t hidden = in * c[0];
        if (c[0] != 1) m.layers.push_back(conv(in_hw, in, hidden, 1));
        m.layers.push_back(depthwise(hw, hidden));
        m.layers.push_back(conv(hw, hidden, c[1], 1));
        in = c[1];
      }
    }
    m.layers.push_back(conv(7, 320, 1280, 1));
    m.layers.push_back(dense(1, 1280, 1000));
    m.default_batch = 256;
    m.published_gmacs = 0.30;
    zoo.push_back(image(m));
  }
  {
    ModelSpec m;
    m.name = "shufflenet";  // ShuffleNetV2 1.0x
    m.layers = {conv(112, 3, 24, 3)};
    const std::int64_t hw[3] = {28, 14, 7};
    const std::int64_t ch[3] = {116, 232, 464};
    const std::int64_t blocks[3] = {4, 8, 4};
    std::int64_t in = 24;
    for (int s = 0; s < 3; ++s) {
      const std::int64_t half = ch[s] / 2;
      // Downsampling unit: both branches (dw 3x3 s2 + 1x1 on the input; 1x1, dw s2, 1x1).
      m.layers.push_back(depthwise(hw[s], in));
      m.layers.push_back(conv(hw[s], in, half, 1));
      m.layers.push_back(conv(2 * hw[s], in, half, 1));
      m.layers.push_back(depthwise(hw[s], half));
      m.layers.push_back(conv(hw[s], half, half, 1));
      // Basic units work on half of the channels.
      m.layers.push_back(conv(hw[s], half, half, 1, 2 * (blocks[s] - 1)));
      m.layers.push_back(depthwise(hw[s], half, blocks[s] - 1));
      in = ch[s];
    }
    m.layers.push_back(conv(7, 464, 1024, 1));
    m.layers.push_back(dense(1, 1024, 1000));
    m.default_batch = 256;
    m.published_gmacs = 0.146;
    zoo.push_back(image(m));
  }
  {
    ModelSpec m;
    m.name = "alexnet";
    m.layers = {conv(55, 3, 64, 11),   conv(27, 64, 192, 5),  conv(13, 192, 384, 3),
                conv(13, 384, 256, 3), conv(13, 256, 256, 3), dense(1, 9216, 4096),
                dense(1, 4096, 4096),  dense(1, 4096, 1000)};
    m.default_batch = 256;
    m.published_gmacs = 0.71;
    zoo.push_back(image(m));
  }
  {
    ModelSpec m;
    m.name = "vgg16";
    m.layers = {conv(224, 3, 64, 3),    conv(224, 64, 64, 3),     conv(112, 64, 128, 3),
                conv(112, 128, 128, 3), conv(56, 128, 256, 3),    conv(56, 256, 256, 3, 2),
                conv(28, 256, 512, 3),  conv(28, 512, 512, 3, 2), conv(14, 512, 512, 3, 3),
                dense(1, 25088, 4096),  dense(1, 4096, 4096),     dense(1, 4096, 1000)};
    m.default_batch = 64;
    m.published_gmacs = 15.5;
    zoo.push_back(image(m));
  }
  {
    // Transformer-base (6+6 layers, d 512, FFN 2048) on WMT16 en-de, 128 tokens per sample.
    ModelSpec m;
    m.name = "transformer";
    const std::int64_t seq = 128;
    append(m.layers, transformer_layer(seq, 512, 2048, 6));
    append(m.layers, transformer_layer(seq, 512, 2048, 6, true));
    m.layers.push_back(dense(seq, 512, 32768));  // output projection over the vocabulary
    m.default_batch = 64;
    m.published_gmacs = 0.0;  // depends on the sequence length; not checked
    m.input = InputKind::kText;
    m.stored_bytes_per_sample = 311;
    m.device_bytes_per_sample = 2 * seq * 4;
    m.dataset_gb = 1.4;
    m.dataset = "WMT16 en-de";
    zoo.push_back(m);
  }
  {
    // BERT-base pre-training: 12 layers, d 768, FFN 3072, 128 tokens, MLM head on 20 tokens.
    ModelSpec m;
    m.name = "bert_base";
    const std::int64_t seq = 128;
    append(m.layers, transformer_layer(seq, 768, 3072, 12));
    m.layers.push_back(dense(20, 768, 30522));
    m.default_batch = 32;
    m.published_gmacs = 11.2;  // ~ 2 * 86M params * 128 tokens / 2 (MACs), encoder only
    m.input = InputKind::kText;
    m.stored_bytes_per_sample = 2048;
    m.device_bytes_per_sample = 3 * seq * 4;
    m.dataset_gb = 20.0;
    m.dataset = "Wikipedia + BookCorpus (tokenized)";
    zoo.push_back(m);
  }
  {
    // GNMT: 4-layer LSTM-1024 encoder (first bidirectional) and decoder with attention, 50
    // tokens; input projections batched over time, hidden-state products sequential.
    ModelSpec m;
    m.name = "gnmt";
    const std::int64_t seq = 50, h = 1024;
    m.layers = {dense(seq, h, 4 * h, 8 + 1), recurrent(h, 4 * h, seq, 9), dense(seq, h, seq, 1),
                dense(seq, seq, h, 1), dense(seq, h, 32000, 1)};
    m.default_batch = 128;
    m.input = InputKind::kText;
    m.stored_bytes_per_sample = 311;
    m.device_bytes_per_sample = 2 * seq * 4;
    m.dataset_gb = 1.4;
    m.dataset = "WMT16 en-de";
    zoo.push_back(m);
  }
  {
    // Word-level LSTM language model (2 x LSTM-650, 35 tokens, 33k vocabulary: WikiText-2).
    ModelSpec m;
    m.name = "lstm";
    const std::int64_t seq = 35, h = 650;
    m.layers = {dense(seq, h, 4 * h, 2), recurrent(h, 4 * h, seq, 2), dense(seq, h, 33278, 1)};
    m.default_batch = 20;
    m.input = InputKind::kText;
    m.stored_bytes_per_sample = 200;
    m.device_bytes_per_sample = 2 * seq * 4;
    m.dataset_gb = 0.54;
    m.dataset = "WikiText-103";
    zoo.push_back(m);
  }
  {
    // DeepSpeech2 (deepspeech.pytorch defaults): 2 conv layers on a 161-bin spectrogram of
    // 15 s (1500 frames, 750 after stride 2), 5 bidirectional LSTM-1024 layers, 29 characters.
    ModelSpec m;
    m.name = "deepspeech";
    const std::int64_t t = 750, h = 1024;
    Layer c1 = conv(1, 1, 32, 1);
    c1.m_per_sample = 81 * t;
    c1.k = 41 * 11;
    Layer c2 = conv(1, 32, 32, 1);
    c2.m_per_sample = 41 * t;
    c2.k = 32 * 21 * 11;
    m.layers = {c1,
                c2,
                dense(t, 32 * 41, 2 * 4 * h, 1),
                dense(t, 2 * h, 2 * 4 * h, 4),
                recurrent(h, 4 * h, t, 2 * 5),
                dense(t, 2 * h, 29, 1)};
    m.default_batch = 20;
    m.input = InputKind::kAudioSpectrogram;
    m.stored_bytes_per_sample = 213000;
    m.device_bytes_per_sample = 161 * 1500 * 4;
    m.dataset_gb = 60.0;
    m.dataset = "LibriSpeech 960h";
    zoo.push_back(m);
  }
  {
    // M5 (Dai et al. 2017) on 4 s of 8 kHz audio: conv k80/s4 then 3 conv blocks.
    ModelSpec m;
    m.name = "m5";
    Layer c1 = conv(1, 1, 128, 1);
    c1.m_per_sample = 8000;
    c1.k = 80;
    Layer c2 = conv(1, 128, 128, 1);
    c2.m_per_sample = 2000;
    c2.k = 128 * 3;
    Layer c3 = conv(1, 128, 256, 1);
    c3.m_per_sample = 500;
    c3.k = 128 * 3;
    Layer c4 = conv(1, 256, 512, 1);
    c4.m_per_sample = 125;
    c4.k = 256 * 3;
    m.layers = {c1, c2, c3, c4, dense(1, 512, 10)};
    m.default_batch = 256;
    m.input = InputKind::kAudioWaveform;
    m.stored_bytes_per_sample = 756000;  // 16 kHz 16-bit stereo WAV, ~4 s (UrbanSound8K)
    m.device_bytes_per_sample = 32000 * 4;
    m.dataset_gb = 6.6;
    m.dataset = "UrbanSound8K";
    zoo.push_back(m);
  }
  {
    // NCF (NeuMF) on MovieLens-20M: embedding gathers, MLP 256-256-128-64, one output.
    ModelSpec m;
    m.name = "recommendation";
    Layer gather;
    gather.kind = LayerKind::kGather;
    gather.bytes_per_sample = 2 * (64 + 128) * 4;
    m.layers = {gather, dense(1, 256, 256), dense(1, 256, 128), dense(1, 128, 64),
                dense(1, 128, 1)};
    m.default_batch = 2048;
    m.input = InputKind::kTabular;
    m.stored_bytes_per_sample = 24;
    m.device_bytes_per_sample = 3 * 4;
    m.dataset_gb = 0.53;
    m.dataset = "MovieLens-20M";
    zoo.push_back(m);
  }
  return zoo;
}

inline ModelSpec find_model(const std::string& name) {
  for (ModelSpec& m : model_zoo()) {
    if (m.name == name) return m;
  }
  std::string names;
  for (const ModelSpec& m : model_zoo()) names += " " + m.name;
  throw std::invalid_argument("unknown model '" + name + "' (known:" + names + ")");
}

}  // namespace ckbench
