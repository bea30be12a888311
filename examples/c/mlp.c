/* A two-layer MLP trained through Ember's C ABI, in plain C99 (no C++ anywhere on this side).
 *
 *   cc -std=c99 -Wall -Wextra -pedantic -Iinclude -Iaten -Ibuild/generated/include examples/c/mlp.c \
 *      -Lbuild -lember -Wl,-rpath,build -o mlp_c && ./mlp_c
 *
 * Fits y = sin(2 x0) + x1 x2 - x3 on 256 synthetic points with 4 -> 32 -> 1 (relu), full-batch SGD,
 * and exits non-zero unless the loss falls to under a fifth of its starting value. The inputs come
 * from the program's own buffers (TensorFromBuffer with a deleter), the update runs in a no-grad
 * scope, and every call's status is checked. At the end the trained w2 is read as a DLPack consumer
 * would (API version 2), through the wrapper's shape and strides. */
#include <ATen/dlpack.h> /* Ember's copy of DLPack's header; any DLPack 1.x dlpack.h does */
#include <ember/ember.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const EmberApi* api;
static int buffers_freed;

/* Any failure: print Ember's message and stop. */
static void check(EmberStatus* st, const char* what) {
  if (st) {
    fprintf(stderr, "mlp_c: %s failed: %s\n", what, api->StatusMessage(st));
    api->ReleaseStatus(st);
    exit(1);
  }
}

/* Deleter of the buffers handed to Ember: called once, when the last reference goes. */
static void free_buffer(void* data, void* ctx) {
  (void)ctx;
  free(data);
  ++buffers_freed;
}

static unsigned long long rng_state = 12345;
static float uniform(float lo, float hi) { /* a small LCG: the example needs no library RNG */
  rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return lo + (hi - lo) * (float)((rng_state >> 40) & 0xFFFFFF) / 16777216.0f;
}

/* A float32 tensor over a malloc'ed buffer that Ember frees (through free_buffer). */
static EmberTensor* from_values(const float* values, int64_t rows, int64_t cols) {
  int64_t shape[2];
  size_t ndim = cols > 0 ? 2 : 1;
  size_t n = (size_t)(rows * (cols > 0 ? cols : 1)), k;
  float* buf = malloc(n * sizeof(float));
  EmberTensor* t = NULL;
  if (!buf) exit(1);
  for (k = 0; k < n; ++k) buf[k] = values ? values[k] : 0.0f;
  shape[0] = rows;
  shape[1] = cols;
  check(api->TensorFromBuffer(buf, shape, ndim, NULL, EMBER_FLOAT32, NULL, free_buffer, NULL, &t), "TensorFromBuffer");
  return t;
}

static EmberTensor* parameter(int64_t rows, int64_t cols, float scale) {
  size_t n = (size_t)(rows * (cols > 0 ? cols : 1)), k;
  float* v = malloc(n * sizeof(float));
  EmberTensor* t;
  if (!v) exit(1);
  for (k = 0; k < n; ++k) v[k] = uniform(-scale, scale);
  t = from_values(v, rows, cols);
  free(v);
  check(api->TensorSetRequiresGrad(t, true), "TensorSetRequiresGrad");
  return t;
}

static float item(const EmberTensor* t) {
  void* p = NULL;
  EmberDType dt;
  check(api->TensorDType(t, &dt), "TensorDType");
  if (dt != EMBER_FLOAT32) {
    fprintf(stderr, "mlp_c: expected a float32 loss, got dtype %d\n", (int)dt);
    exit(1);
  }
  check(api->TensorData(t, &p), "TensorData");
  return *(const float*)p;
}

int main(void) {
  enum { N = 256, IN = 4, HIDDEN = 32, STEPS = 300 };
  const EmberOps* ops;
  float xs[N * IN], ys[N];
  EmberTensor *x, *y, *w1, *b1, *w2, *b2;
  EmberTensor* params[4];
  const EmberScalar lr = {EMBER_VALUE_DOUBLE, 0, 0, 0.1, NULL};
  float first = 0, last = 0;
  int step, k;

  api = EmberGetApi(EMBER_API_VERSION);
  if (!api) {
    fprintf(stderr, "mlp_c: libember does not provide C API version %u\n", EMBER_API_VERSION);
    return 1;
  }
  ops = api->ops;
  if (!EMBER_OPS_HAS(ops, mse_loss)) {
    fprintf(stderr, "mlp_c: this libember has no mse_loss\n");
    return 1;
  }
  printf("Ember %s, C API version %u, %llu ops\n", api->VersionString(), api->version,
         (unsigned long long)ops->num_ops);

  for (k = 0; k < N; ++k) {
    float* r = xs + k * IN;
    r[0] = uniform(-1, 1);
    r[1] = uniform(-1, 1);
    r[2] = uniform(-1, 1);
    r[3] = uniform(-1, 1);
    ys[k] = sinf(2 * r[0]) + r[1] * r[2] - r[3];
  }
  x = from_values(xs, N, IN);
  y = from_values(ys, N, 1);
  w1 = parameter(IN, HIDDEN, 0.5f);
  b1 = parameter(HIDDEN, 0, 0.1f);
  w2 = parameter(HIDDEN, 1, 0.3f);
  b2 = parameter(1, 0, 0.1f);
  params[0] = w1, params[1] = b1, params[2] = w2, params[3] = b2;

  for (step = 0; step < STEPS; ++step) {
    EmberTensor *h0, *h, *out, *loss;
    bool prev;
    int p;
    /* forward: relu(x w1 + b1) w2 + b2, mean squared error */
    check(ops->addmm(b1, x, w1, NULL, NULL, &h0), "addmm");
    check(ops->relu(h0, &h), "relu");
    check(ops->addmm(b2, h, w2, NULL, NULL, &out), "addmm");
    check(ops->mse_loss(out, y, NULL, &loss), "mse_loss");
    if (step == 0) first = item(loss);
    last = item(loss);
    check(api->Backward(loss, NULL, false), "Backward");
    /* SGD in a no-grad scope: p -= lr * p.grad; p.grad = 0 */
    check(api->SetGradEnabled(false, &prev), "SetGradEnabled");
    for (p = 0; p < 4; ++p) {
      EmberTensor* g = NULL;
      check(api->TensorGrad(params[p], &g), "TensorGrad");
      if (!g) {
        fprintf(stderr, "mlp_c: parameter %d has no gradient\n", p);
        return 1;
      }
      check(ops->sub__Tensor(params[p], g, &lr, NULL), "sub_");
      check(ops->zero_(g, NULL), "zero_");
      api->ReleaseTensor(g);
    }
    check(api->SetGradEnabled(prev, NULL), "SetGradEnabled");
    if (step % 50 == 0) printf("step %3d  loss %.5f\n", step, last);
    api->ReleaseTensor(h0);
    api->ReleaseTensor(h);
    api->ReleaseTensor(out);
    api->ReleaseTensor(loss);
  }
  printf("loss %.5f -> %.5f\n", first, last);

  /* w2 through DLPack: no copy (its data is w2's), column k of row j at strides[0] j + strides[1] k. */
  {
    struct DLManagedTensorVersioned* m = NULL;
    void* w2_data = NULL;
    const float* e;
    double norm = 0;
    int j;
    check(api->TensorToDLPackVersioned(w2, &m), "TensorToDLPackVersioned");
    check(api->TensorData(w2, &w2_data), "TensorData");
    if (m->version.major != 1 || m->dl_tensor.ndim != 2 || m->dl_tensor.shape[0] != HIDDEN ||
        m->dl_tensor.shape[1] != 1 || m->dl_tensor.dtype.code != kDLFloat || m->dl_tensor.dtype.bits != 32 ||
        m->dl_tensor.data != w2_data) {
      fprintf(stderr, "mlp_c: unexpected DLPack export of w2\n");
      return 1;
    }
    e = (const float*)m->dl_tensor.data;
    for (j = 0; j < HIDDEN; ++j) norm += (double)e[j * m->dl_tensor.strides[0]] * e[j * m->dl_tensor.strides[0]];
    printf("|w2| = %.4f (read through DLPack)\n", sqrt(norm));
    m->deleter(m); /* the consumer's part: exactly once */
  }

  api->ReleaseTensor(x);
  api->ReleaseTensor(y);
  for (k = 0; k < 4; ++k) api->ReleaseTensor(params[k]);
  /* Every buffer handed over (x, y and four parameters) was freed exactly once by now. */
  if (buffers_freed != 6) {
    fprintf(stderr, "mlp_c: %d of 6 buffers freed\n", buffers_freed);
    return 1;
  }
  if (!(last < first / 5)) {
    fprintf(stderr, "mlp_c: the loss did not fall enough (%.5f -> %.5f)\n", first, last);
    return 1;
  }
  printf("ok\n");
  return 0;
}
