// datasets::MNIST on Debian's Fashion-MNIST gzip files, on plain and damaged copies, and the classic
// libtorch example loop. Reference numbers come from an independent Python reader (gzip + struct):
//   train: 60000 images, labels 9 0 0 3 0 2 7 2 5 5 ..., pixel byte sum 3431114169, image 0 sum 76247,
//          image 59999 sum 16684, pixel [0][14][14] = 217, label sum 270000
//   t10k:  10000 images, labels 9 2 1 1 6 1 4 6 5 7 ..., pixel byte sum 573469082, image 0 sum 33456,
//          pixel [0][14][14] = 110, label sum 45000
#include <torch/torch.h>
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace data = torch::data;
using data::datasets::MNIST;

namespace {

const std::string kFashion = "/usr/share/datasets/fashion-mnist";

bool have_fashion() { return std::ifstream(kFashion + "/t10k-labels-idx1-ubyte.gz").good(); }

// A fresh empty directory under /tmp, removed with its files at scope exit.
struct TempDir {
  TempDir() {
    char tmpl[] = "/tmp/ember-mnist-XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~TempDir() {
    for (auto& f : files) std::remove((path + "/" + f).c_str());
    rmdir(path.c_str());
  }
  void write(const std::string& name, const std::vector<uint8_t>& bytes) {
    std::ofstream(path + "/" + name, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                                              static_cast<std::streamsize>(bytes.size()));
    files.push_back(name);
  }
  std::string path;
  std::vector<std::string> files;
};

void put_u32(std::vector<uint8_t>& b, uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) b.push_back(static_cast<uint8_t>(v >> s));
}

// An IDX image file of n 28x28 images where pixel p of image i is (i + p) % 256, and its label file (label i % 10).
std::vector<uint8_t> images_idx(uint32_t n, uint32_t magic = 2051) {
  std::vector<uint8_t> b;
  put_u32(b, magic);
  put_u32(b, n);
  put_u32(b, 28);
  put_u32(b, 28);
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t p = 0; p < 784; ++p) b.push_back(static_cast<uint8_t>((i + p) % 256));
  return b;
}
std::vector<uint8_t> labels_idx(uint32_t n) {
  std::vector<uint8_t> b;
  put_u32(b, 2049);
  put_u32(b, n);
  for (uint32_t i = 0; i < n; ++i) b.push_back(static_cast<uint8_t>(i % 10));
  return b;
}

// images_idx(50) compressed by Python's gzip.compress(data, mtime=0) (the test carries no zlib of its own).
const std::vector<uint8_t> kImages50Gz = {
0x1f,0x8b,0x08,0x00,0x00,0x00,0x00,0x00,0x02,0x03,0xed,0xd0,0x67,0x5b,0x88,0x01,0x00,0x46,0xe1,0x37,0x15,0x45,0xb6,0xd0,
0x30,0xb3,0x4b,0x08,0x91,0xbd,0x09,0x21,0x23,0x21,0xc9,0xca,0xde,0x65,0x93,0xb2,0xf7,0x28,0x5b,0x66,0x36,0x65,0x8f,0xec,
0x6c,0x25,0x5b,0x28,0x7b,0x64,0x65,0x97,0x19,0xb9,0x7c,0x79,0xfc,0x88,0xf3,0xe1,0xfc,0x80,0xfb,0x18,0x86,0x85,0xa9,0x61,
0x18,0x2e,0x7f,0xb3,0xff,0x97,0x49,0x26,0x53,0x33,0xf3,0xcc,0x59,0x2c,0x2c,0xb3,0x66,0xb3,0xca,0x9e,0x23,0x67,0xae,0xdc,
0x79,0xf2,0xe6,0xb3,0xce,0x5f,0xa0,0xa0,0x8d,0xad,0x9d,0x7d,0xa1,0xc2,0x45,0x8a,0x16,0x2b,0xee,0x50,0xa2,0x64,0xa9,0xd2,
0x65,0xca,0x96,0x73,0x74,0x2a,0xef,0x5c,0xa1,0x62,0x25,0x97,0xca,0x55,0xaa,0xba,0x56,0xab,0xee,0x56,0xa3,0x66,0xad,0xda,
0x75,0xea,0xd6,0xab,0xdf,0xa0,0x61,0xa3,0xc6,0x4d,0x9a,0x36,0x73,0x6f,0xde,0xa2,0xa5,0x47,0xab,0xd6,0x6d,0x3c,0xdb,0xb6,
0x6b,0xdf,0xc1,0xab,0xa3,0x77,0xa7,0xce,0x5d,0x7c,0xba,0xfa,0x76,0xf3,0xeb,0xde,0xa3,0x67,0xaf,0xde,0xfe,0x7d,0xfa,0xf6,
0xeb,0x3f,0x60,0xe0,0xa0,0xc1,0x43,0x86,0x0e,0x1b,0x3e,0x22,0x20,0x70,0xe4,0xa8,0xd1,0x63,0xc6,0x8e,0x1b,0x3f,0x61,0x62,
0xd0,0xa4,0xe0,0x90,0xc9,0x53,0xa6,0x4e,0x9b,0x3e,0x63,0xe6,0xac,0xd9,0x73,0xe6,0xce,0x9b,0xbf,0x60,0xe1,0xa2,0xd0,0xb0,
0xc5,0x4b,0x96,0x2e,0x5b,0xbe,0x62,0xe5,0xaa,0xf0,0xd5,0x6b,0xd6,0xae,0x5b,0xbf,0x21,0x62,0xe3,0xa6,0xcd,0x5b,0xb6,0x6e,
0xdb,0xbe,0x63,0x67,0x64,0xd4,0xae,0xdd,0x7b,0xf6,0xee,0xdb,0x7f,0xe0,0xe0,0xa1,0xc3,0xd1,0x47,0x8e,0x1e,0x3b,0x7e,0xe2,
0xe4,0xa9,0x98,0xd3,0x67,0xce,0x9e,0x3b,0x7f,0xe1,0xe2,0xa5,0xd8,0xb8,0xcb,0xf1,0x57,0xae,0x5e,0xbb,0x7e,0xe3,0xe6,0xad,
0xdb,0x09,0x77,0xee,0xde,0x4b,0x4c,0xba,0xff,0xe0,0xe1,0xa3,0xc7,0x4f,0x9e,0x3e,0x7b,0xfe,0x22,0xf9,0xe5,0xab,0xd7,0x6f,
0xde,0xa6,0xbc,0x7b,0xff,0xe1,0xe3,0xa7,0xcf,0x5f,0x52,0xd3,0xbe,0x7e,0xfb,0xfe,0xe3,0xe7,0xaf,0xf4,0xdf,0x7f,0xf0,0xe3,
0xff,0xdf,0xcf,0x0e,0xfc,0xf8,0xe5,0x67,0x07,0x7e,0xfc,0xf2,0xb3,0x03,0x3f,0x7e,0xf9,0xd9,0x81,0x1f,0xbf,0xfc,0xec,0xc0,
0x8f,0x5f,0x7e,0x76,0xe0,0xc7,0x2f,0x3f,0x3b,0xf0,0xe3,0x97,0x9f,0x1d,0xf8,0xf1,0xcb,0xcf,0x0e,0xfc,0xf8,0xe5,0x67,0x07,
0x7e,0xfc,0xf2,0xb3,0x03,0x3f,0x7e,0xf9,0xd9,0x81,0x1f,0xbf,0xfc,0xec,0xc0,0x8f,0x5f,0x7e,0x76,0xe0,0xc7,0x2f,0x3f,0x3b,
0xf0,0xe3,0x97,0x9f,0x1d,0xf8,0xf1,0xcb,0xcf,0x0e,0xfc,0xf8,0xe5,0x67,0x07,0x7e,0xfc,0xf2,0xb3,0x03,0x3f,0x7e,0xf9,0xd9,
0x81,0x1f,0xbf,0xfc,0xec,0xc0,0x8f,0x5f,0x7e,0x76,0xe0,0xc7,0x2f,0x3f,0x3b,0xf0,0xe3,0x97,0x9f,0x1d,0xf8,0xf1,0xcb,0xcf,
0x0e,0xfc,0xf8,0xe5,0x67,0x07,0x7e,0xfc,0xf2,0xb3,0x03,0x3f,0x7e,0xf9,0xd9,0x81,0x1f,0xbf,0xfc,0xec,0xc0,0x8f,0x5f,0x7e,
0x76,0xe0,0xc7,0x2f,0x3f,0x3b,0xf0,0xe3,0x97,0x9f,0x1d,0xf8,0xf1,0xcb,0xcf,0x0e,0xfc,0xf8,0xe5,0x67,0x07,0x7e,0xfc,0xf2,
0xb3,0x03,0x3f,0x7e,0xf9,0xd9,0x81,0x1f,0xbf,0xfc,0xec,0xc0,0x8f,0x5f,0x7e,0x76,0xe0,0xc7,0x2f,0x3f,0x3b,0xf0,0xe3,0x97,
0x9f,0x1d,0xf8,0xf1,0xcb,0xcf,0x0e,0xfc,0xf8,0xe5,0x67,0x07,0x7e,0xfc,0xf2,0xb3,0x03,0x3f,0x7e,0xf9,0xd9,0x81,0x1f,0xbf,
0xfc,0xec,0xc0,0x8f,0x5f,0x7e,0x76,0xe0,0xc7,0x2f,0x3f,0x3b,0xf0,0xe3,0x97,0x9f,0x1d,0xf8,0xf1,0xcb,0xcf,0x0e,0xfc,0xf8,
0xe5,0xcf,0x00,0x88,0xe8,0x05,0x12,0x30,0x99,0x00,0x00};

std::string error_of(const std::string& root, MNIST::Mode mode = MNIST::Mode::kTest) {
  try {
    MNIST m(root, mode);
  } catch (const c10::Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("MNIST reads Debian's gzip-compressed Fashion-MNIST", "[data][mnist]") {
  if (!have_fashion()) {
    WARN("skipped: " << kFashion << " is missing (Debian package dataset-fashion-mnist)");
    return;
  }
  MNIST test(kFashion, MNIST::Mode::kTest);
  CHECK_FALSE(test.is_train());
  CHECK(test.size().value() == 10000);
  CHECK(test.images().sizes() == torch::IntArrayRef({10000, 1, 28, 28}));
  CHECK(test.images().scalar_type() == torch::kFloat);
  CHECK(test.targets().sizes() == torch::IntArrayRef({10000}));
  CHECK(test.targets().scalar_type() == torch::kLong);
  auto first = test.targets().slice(0, 0, 10).contiguous();
  CHECK(std::vector<int64_t>(first.data_ptr<int64_t>(), first.data_ptr<int64_t>() + 10) ==
        std::vector<int64_t>{9, 2, 1, 1, 6, 1, 4, 6, 5, 7});
  CHECK(test.targets().sum().item<int64_t>() == 45000);
  // Pixels are bytes / 255: multiply back and sum in float64.
  auto bytes = (test.images().to(torch::kDouble) * 255).round();
  CHECK(bytes.sum().item<double>() == 573469082.0);
  CHECK(bytes[0].sum().item<double>() == 33456.0);
  CHECK(test.images()[0][0][14][14].item<float>() == 110.0f / 255.0f);
  CHECK(test.images().min().item<float>() == 0.0f);
  CHECK(test.images().max().item<float>() == 1.0f);
  auto e = test.get(0);
  CHECK(e.data.sizes() == torch::IntArrayRef({1, 28, 28}));
  CHECK(e.target.item<int64_t>() == 9);
  CHECK_THROWS_WITH(test.get(10000), Catch::StartsWith("[MNIST] index 10000 is out of range for 10000 images"));

  MNIST train(kFashion);  // kTrain by default
  CHECK(train.is_train());
  CHECK(train.size().value() == 60000);
  auto tb = (train.images().to(torch::kDouble) * 255).round();
  CHECK(tb.sum().item<double>() == 3431114169.0);
  CHECK(tb[0].sum().item<double>() == 76247.0);
  CHECK(tb[59999].sum().item<double>() == 16684.0);
  CHECK(train.images()[0][0][14][14].item<float>() == 217.0f / 255.0f);
  CHECK(train.targets().sum().item<int64_t>() == 270000);
  auto tf = train.targets().slice(0, 0, 10).contiguous();
  CHECK(std::vector<int64_t>(tf.data_ptr<int64_t>(), tf.data_ptr<int64_t>() + 10) ==
        std::vector<int64_t>{9, 0, 0, 3, 0, 2, 7, 2, 5, 5});
}

TEST_CASE("The classic libtorch MNIST loop compiles and runs unchanged", "[data][mnist]") {
  if (!have_fashion()) {
    WARN("skipped: " << kFashion << " is missing (Debian package dataset-fashion-mnist)");
    return;
  }
  const std::string path = kFashion;
  auto ds = torch::data::datasets::MNIST(path)
                .map(torch::data::transforms::Normalize<>(0.1307, 0.3081))
                .map(torch::data::transforms::Stack<>());
  const size_t dataset_size = ds.size().value();
  auto loader = torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(std::move(ds), 64);
  size_t batches = 0, seen = 0;
  for (auto& batch : *loader) {
    auto data = batch.data;
    auto target = batch.target;
    if (batches == 0) {
      CHECK(data.sizes() == torch::IntArrayRef({64, 1, 28, 28}));
      CHECK(target.sizes() == torch::IntArrayRef({64}));
      CHECK(target[0].item<int64_t>() == 9);
      // Normalised pixel [0][0][14][14] = (217/255 - 0.1307) / 0.3081 (float64 here; float32 in the loader).
      CHECK(data[0][0][14][14].item<double>() == Approx((217.0 / 255.0 - 0.1307) / 0.3081).epsilon(1e-6));
    }
    ++batches;
    seen += static_cast<size_t>(data.size(0));
  }
  CHECK(dataset_size == 60000);
  CHECK(batches == 938);  // ceil(60000 / 64)
  CHECK(seen == 60000);

  // The same with worker threads and a random sampler: every sample once.
  auto test_loader = torch::data::make_data_loader(
      torch::data::datasets::MNIST(path, MNIST::Mode::kTest).map(torch::data::transforms::Stack<>()),
      torch::data::DataLoaderOptions().batch_size(1000).workers(2));
  int64_t label_sum = 0;
  size_t n = 0;
  for (auto& batch : *test_loader) {
    label_sum += batch.target.sum().item<int64_t>();
    n += static_cast<size_t>(batch.target.size(0));
  }
  CHECK(n == 10000);
  CHECK(label_sum == 45000);
}

TEST_CASE("MNIST reads plain and gzip IDX files and rejects damaged ones", "[data][mnist]") {
  {
    TempDir d;
    d.write("t10k-images-idx3-ubyte", images_idx(3));
    d.write("t10k-labels-idx1-ubyte", labels_idx(3));
    MNIST m(d.path, MNIST::Mode::kTest);
    REQUIRE(m.size().value() == 3);
    CHECK(m.images()[2][0][0][5].item<float>() == 7.0f / 255.0f);    // (2 + 5) % 256
    CHECK(m.images()[1][0][27][27].item<float>() == 16.0f / 255.0f);  // (1 + 783) % 256
    CHECK(m.targets()[2].item<int64_t>() == 2);
    CHECK_FALSE(m.is_train());
  }
  {
    TempDir d;  // one gzip, one plain; the trailing slash on the root is fine
    d.write("train-images-idx3-ubyte.gz", kImages50Gz);
    d.write("train-labels-idx1-ubyte", labels_idx(50));
    MNIST m(d.path + "/");
    CHECK(m.size().value() == 50);
    CHECK(m.is_train());
    CHECK(m.images()[1][0][0][0].item<float>() == 1.0f / 255.0f);
    CHECK(m.images()[49][0][0][10].item<float>() == 59.0f / 255.0f);
    CHECK(m.targets()[49].item<int64_t>() == 9);
  }
  {
    TempDir d;
    CHECK_THAT(error_of(d.path), Catch::StartsWith("[MNIST] cannot open " + d.path + "/t10k-images-idx3-ubyte"));
  }
  {
    TempDir d;  // truncated gzip stream
    d.write("t10k-labels-idx1-ubyte", labels_idx(50));
    auto gz = kImages50Gz;
    gz.resize(gz.size() / 2);
    d.write("t10k-images-idx3-ubyte.gz", gz);
    std::string err = error_of(d.path);
    CHECK_THAT(err, Catch::StartsWith("[MNIST] " + d.path + "/t10k-images-idx3-ubyte.gz"));
    CHECK_THAT(err, Catch::Contains("truncated") || Catch::Contains("end of the compressed data") ||
                        Catch::Contains("not a readable gzip file"));
  }
  {
    TempDir d;  // corrupt deflate data after a valid gzip header
    d.write("t10k-labels-idx1-ubyte", labels_idx(50));
    auto gz = kImages50Gz;
    for (size_t i = 20; i < gz.size() - 8; i += 7) gz[i] = static_cast<uint8_t>(gz[i] ^ 0x5a);
    d.write("t10k-images-idx3-ubyte.gz", gz);
    CHECK_THAT(error_of(d.path), Catch::StartsWith("[MNIST] " + d.path + "/t10k-images-idx3-ubyte.gz"));
  }
  {
    TempDir d;  // plain file cut inside the pixels
    auto img = images_idx(4);
    img.resize(16 + 784 * 3 + 100);
    d.write("t10k-images-idx3-ubyte", img);
    d.write("t10k-labels-idx1-ubyte", labels_idx(4));
    CHECK_THAT(error_of(d.path), Catch::StartsWith("[MNIST] " + d.path + "/t10k-images-idx3-ubyte is truncated: "
                                                   "its header announces 4 images (3152 bytes); got 2468 bytes"));
  }
  {
    TempDir d;  // header cut short, wrong magic, wrong image size, label count mismatch
    d.write("t10k-images-idx3-ubyte", {0, 0, 8});
    d.write("t10k-labels-idx1-ubyte", labels_idx(1));
    CHECK_THAT(error_of(d.path), Catch::Contains("is truncated: an image file starts with a 16-byte header; got 3"));
    d.write("t10k-images-idx3-ubyte", images_idx(1, 2049));
    CHECK_THAT(error_of(d.path), Catch::Contains("expected magic number 2051; got 2049"));
    std::vector<uint8_t> small;
    put_u32(small, 2051);
    put_u32(small, 1);
    put_u32(small, 14);
    put_u32(small, 14);
    small.resize(16 + 196);
    d.write("t10k-images-idx3-ubyte", small);
    CHECK_THAT(error_of(d.path), Catch::Contains("expected 28x28 images; got 14x14"));
    d.write("t10k-images-idx3-ubyte", images_idx(2));
    CHECK_THAT(error_of(d.path), Catch::Contains("disagree: 2 images but 1 labels"));
    d.write("t10k-labels-idx1-ubyte", images_idx(1));
    CHECK_THAT(error_of(d.path), Catch::Contains("t10k-labels-idx1-ubyte is not an IDX label file"));
  }
}
