/*
 * etrecord_fixtures.c - ETDump/ETRecord pairs for the inspector's ETRecord
 * features (see etrecord_fixtures.h).  ETDumps come from the test writer
 * (tests/etdump/etdump_writer.h), ETRecords from etkit's own writer
 * (etk_etrecord_write_memory), broken records from hand-made zips
 * (tests/etrecord/fixture.h).
 *
 * Timestamps are nanoseconds chosen so that the expected millisecond
 * values can be worked out by hand (delegated events are converted stamp
 * by stamp: end/1e6 - start/1e6).
 */
#include "etrecord_fixtures.h"

#include <stdlib.h>
#include <string.h>

#include "../etdump/etdump_writer.h"
#include "../etrecord/fixture.h"
#include "etkit/etrecord.h"

/* ---------------------------------------------------------- ETDump side */

uint8_t *fixture_appendix_d_etdump(size_t *len) {
  etw_t *w = etw_new(1 << 16);
  if (!w) return NULL;
  etw_run_begin(w, "Default", -1);
  etw_profile_simple(w, "Method::init", -1, 0, 0, 1000);
  etw_run_end(w);
  etw_run_begin(w, "Execute", -1);
  etw_profile_simple(w, "native_call_add.out", 0, 0, 1000, 3000);
  etw_profile_simple(w, "OPERATOR_CALL", 0, 0, 1000, 3500);
  etw_profile_delegated(w, 1, 10, NULL, NULL, 0, 4000, 5000);
  etw_profile_delegated(w, 1, 3, NULL, NULL, 0, 5000, 5500);
  etw_profile_delegated(w, 1, -1, "fc", NULL, 0, 5500, 7500);
  etw_profile_delegated(w, 1, -1, "xx", NULL, 0, 7500, 8000);
  etw_profile_simple(w, "DELEGATE_CALL", 0, 1, 3900, 8100);
  etw_profile_delegated(w, 2, 0, NULL, NULL, 0, 9000, 9600);
  etw_profile_simple(w, "DELEGATE_CALL", 0, 2, 8900, 9700);
  etw_profile_simple(w, "Method::execute", -1, 0, 500, 10000);
  etw_run_end(w);
  return etw_finish_copy(w, len);
}

uint8_t *fixture_quirks_etdump(size_t *len) {
  etw_t *w = etw_new(1 << 16);
  if (!w) return NULL;
  etw_run_begin(w, "Execute", -1);
  etw_profile_simple(w, "native_call_add.out", 0, 0, 1000, 3000);
  etw_profile_simple(w, "OPERATOR_CALL", 0, 0, 1000, 3500);
  etw_profile_delegated(w, 1, 12, NULL, NULL, 0, 4000, 5000);
  etw_profile_simple(w, "DELEGATE_CALL", 0, 1, 3900, 5100);
  etw_profile_simple(w, "Method::execute", -1, 0, 500, 6000);
  etw_run_end(w);
  etw_run_begin(w, "decode", -1);
  etw_profile_simple(w, "native_call_div.out", 0, 0, 7000, 7400);
  etw_profile_simple(w, "OPERATOR_CALL", 0, 0, 7000, 7500);
  etw_profile_simple(w, "Method::execute", -1, 0, 6500, 8000);
  etw_run_end(w);
  return etw_finish_copy(w, len);
}

uint8_t *fixture_modules_etdump(size_t *len) {
  etw_t *w = etw_new(1 << 16);
  if (!w) return NULL;
  for (uint64_t run = 0; run < 2; run++) {
    uint64_t o = run * 100;
    etw_run_begin(w, "Execute", -1);
    etw_profile_simple(w, "native_call_convolution.out", 0, 0, 1000, 5000 + o);
    etw_profile_simple(w, "OPERATOR_CALL", 0, 0, 900, 5200 + o);
    etw_profile_simple(w, "native_call_relu.out", 0, 1, 6000, 6500);
    etw_profile_simple(w, "OPERATOR_CALL", 0, 1, 5900, 6600);
    etw_profile_delegated(w, 2, 0, NULL, NULL, 0, 7000, 9000);
    etw_profile_delegated(w, 2, 1, NULL, NULL, 0, 9000, 9500);
    etw_profile_delegated(w, 2, 5, NULL, NULL, 0, 9500, 9600);
    etw_profile_simple(w, "DELEGATE_CALL", 0, 2, 6900, 9800);
    etw_profile_simple(w, "DELEGATE_CALL", 0, 3, 10000, 12000);
    etw_profile_simple(w, "OPERATOR_CALL", 0, 4, 12100, 12400);
    etw_profile_simple(w, "native_call_clone.out", 0, 5, 12500, 12600);
    etw_profile_simple(w, "Method::execute", -1, 0, 0, 13000 + o);
    etw_run_end(w);
  }
  return etw_finish_copy(w, len);
}

/* --------------------------------------------------------- ETRecord side */

#define EDGE "executorch.exir.dialects.edge.ops.aten."

static uint8_t *record_done(const etk_etrecord_method_desc_t *methods,
                            size_t count, size_t *len) {
  etk_etrecord_desc_t desc = {.methods = methods, .method_count = count};
  uint8_t *out = NULL;
  etk_error_t err;
  etk_error_clear(&err);
  if (etk_etrecord_write_memory(&desc, &out, len, &err) != ETK_OK) {
    *len = 0;
    return NULL;
  }
  return out;
}

/* Appendix D: module stacks as in tests/etrecord/test_etrecord_link.c,
 * stack traces with one library frame below the user frame for mm. */
static const etk_etrecord_module_desc_t kAdd[] = {
    {"L__self__", "", "M"}, {"L__self___aten_add", "aten_add", "Add"}};
static const etk_etrecord_module_desc_t kMm[] = {
    {"L__self__", "", "M"}, {"L__self___aten_mm", "aten_mm", "Mm"}};
static const etk_etrecord_module_desc_t kRelu[] = {
    {"L__self__", "", "M"}, {"L__self___aten_relu", "aten_relu", "Relu"}};
static const etk_etrecord_module_desc_t kSub[] = {
    {"L__self__", "", "M"}, {"L__self___aten_sub", "aten_sub", "Sub"}};
static const etk_etrecord_module_desc_t kSubDup[] = {
    {"L__self__", "", "M"}, {"L__self___aten_sub_dup", "aten_sub_dup", "Sub"}};
static const etk_etrecord_module_desc_t kMul[] = {
    {"L__self__", "", "M"}, {"L__self___aten_mul", "aten_mul", "Mul"}};
static const char *const kOutAdd[] = {"aten_add_tensor"};
static const char *const kOutMm[] = {"aten_mm_default"};
static const char *const kOutRelu[] = {"aten_relu_default"};
static const char *const kOutSub[] = {"aten_sub_tensor"};
static const char *const kOutSub1[] = {"aten_sub_tensor_1"};
static const char *const kOutMul[] = {"aten_mul_tensor"};

#define FRAME(line, code) \
  "  File \"/work/model/m.py\", line " line ", in forward\n    " code "\n"
#define LIBRARY_FRAME                                                      \
  "  File \"/usr/lib/python3/site-packages/torch/nn/modules/module.py\", " \
  "line 1501, in _call_impl\n    return forward_call(*args, **kwargs)\n"

#define NODE(nm, tgt, handle, trace, mods, outs)                         \
  {                                                                      \
    .name = nm, .target = EDGE tgt, .debug_handle = handle,              \
    .stack_trace = trace, .module_stack = mods,                          \
    .module_stack_count = sizeof mods / sizeof mods[0], .outputs = outs, \
    .output_count = 1                                                    \
  }

static const etk_etrecord_node_desc_t kForwardNodes[] = {
    NODE("aten_add_tensor", "add.Tensor", 7, FRAME("7", "x = x + y"), kAdd,
         kOutAdd),
    NODE("aten_mm_default", "mm.default", 8,
         FRAME("8", "x = self.aten_mm(x)") LIBRARY_FRAME, kMm, kOutMm),
    NODE("aten_relu_default", "relu.default", 9, FRAME("9", "x = x.relu()"),
         kRelu, kOutRelu),
    NODE("aten_sub_tensor", "sub.Tensor", 11, FRAME("11", "a = x - y"), kSub,
         kOutSub),
    NODE("aten_sub_tensor_1", "sub.Tensor", 11, FRAME("12", "b = x - y"),
         kSubDup, kOutSub1),
    NODE("aten_mul_tensor", "mul.Tensor", 20, FRAME("20", "return a * b"), kMul,
         kOutMul),
};

static const int64_t kH7[] = {7}, kH8_9_11[] = {8, 9, 11}, kH20[] = {20};
static const etk_etrecord_handle_desc_t kForwardHandles[] = {
    {0, kH7, 1, false}, {1, kH8_9_11, 3, true}, {2, kH20, 1, true}};
static const int64_t kH8[] = {8}, kH9[] = {9}, kH11[] = {11}, kH8_9[] = {8, 9};
static const etk_etrecord_delegate_id_desc_t kXnnIds[] = {
    {"0", kH8, 1}, {"1", kH9, 1}, {"10", kH11, 1}, {"fc", kH8_9, 2}};
static const etk_etrecord_delegate_desc_t kForwardDelegates[] = {
    {1, "XnnpackBackend", kXnnIds, 4, 2}};

static etk_etrecord_method_desc_t forward_method(void) {
  etk_etrecord_method_desc_t m = {
      .name = "forward",
      .nodes = kForwardNodes,
      .node_count = sizeof kForwardNodes / sizeof kForwardNodes[0],
      .handles = kForwardHandles,
      .handle_count = 3,
      .delegates = kForwardDelegates,
      .delegate_count = 1};
  return m;
}

uint8_t *fixture_appendix_d_etrecord(size_t *len) {
  etk_etrecord_method_desc_t m = forward_method();
  return record_done(&m, 1, len);
}

static const etk_etrecord_module_desc_t kDecoder[] = {
    {"L__self__", "", "M"},
    {"L__self___decoder", "L['self'].decoder", "Decoder"}};
static const char *const kOutDiv[] = {"aten_div_tensor"};
static const etk_etrecord_node_desc_t kDecodeNodes[] = {
    NODE("aten_div_tensor", "div.Tensor", 30,
         "  File \"/work/model/decode.py\", line 4, in decode\n"
         "    return x / 2\n",
         kDecoder, kOutDiv)};
static const int64_t kH30[] = {30};
static const etk_etrecord_handle_desc_t kDecodeHandles[] = {
    {0, kH30, 1, false}};

uint8_t *fixture_quirks_etrecord(size_t *len) {
  etk_etrecord_method_desc_t m[2];
  m[0] = forward_method();
  m[1] = (etk_etrecord_method_desc_t){.name = "decode",
                                      .nodes = kDecodeNodes,
                                      .node_count = 1,
                                      .handles = kDecodeHandles,
                                      .handle_count = 1};
  return record_done(m, 2, len);
}

/* The module network: Net(features=Sequential(Conv2d, ReLU), head=Head(fc1,
 * act), classifier=Sequential(Linear, Sigmoid)) plus a root-level view. */
#define ROOT \
  { "L__self__", "", "mymodel.Net" }
#define FEATURES                                \
  {                                             \
    "L__self___features", "L['self'].features", \
        "torch.nn.modules.container.Sequential" \
  }
#define HEAD \
  { "L__self___head", "L['self'].head", "mymodel.Head" }
#define CLASSIFIER                                  \
  {                                                 \
    "L__self___classifier", "L['self'].classifier", \
        "torch.nn.modules.container.Sequential"     \
  }
static const etk_etrecord_module_desc_t kConvMods[] = {
    ROOT,
    FEATURES,
    {"L__self___features_0", "getattr(L['self'].features, '0')",
     "torch.nn.modules.conv.Conv2d"}};
static const etk_etrecord_module_desc_t kReluMods[] = {
    ROOT,
    FEATURES,
    {"L__self___features_1", "getattr(L['self'].features, '1')",
     "torch.nn.modules.activation.ReLU"}};
static const etk_etrecord_module_desc_t kFc1Mods[] = {
    ROOT,
    HEAD,
    {"L__self___head_fc1", "L['self'].head.fc1",
     "torch.nn.modules.linear.Linear"}};
static const etk_etrecord_module_desc_t kActMods[] = {
    ROOT,
    HEAD,
    {"L__self___head_act", "L['self'].head.act",
     "torch.nn.modules.activation.ReLU"}};
static const etk_etrecord_module_desc_t kLinearMods[] = {
    ROOT,
    CLASSIFIER,
    {"L__self___classifier_0", "L['self'].classifier[0]",
     "torch.nn.modules.linear.Linear"}};
static const etk_etrecord_module_desc_t kSigmoidMods[] = {
    ROOT,
    CLASSIFIER,
    {"L__self___classifier_1", "L['self'].classifier[1]",
     "torch.nn.modules.activation.Sigmoid"}};
static const etk_etrecord_module_desc_t kRootMods[] = {ROOT};
static const char *const kOutConv[] = {"aten_convolution_default"};
static const char *const kOutR[] = {"aten_relu_default"};
static const char *const kOutFc1[] = {"aten_mm_default"};
static const char *const kOutAct[] = {"aten_relu_default_1"};
static const char *const kOutLin[] = {"aten_add_tensor"};
static const char *const kOutSig[] = {"aten_sigmoid_default"};
static const char *const kOutView[] = {"aten_view_copy_default"};

#define MODEL_FRAME(line, code)                                              \
  "  File \"/home/dev/proj/model.py\", line " line ", in forward\n    " code \
  "\n"

static const etk_etrecord_node_desc_t kModuleNodes[] = {
    NODE("aten_convolution_default", "convolution.default", 1,
         MODEL_FRAME(
             "30",
             "x = self.features(x)") "  File \"/home/dev/proj/blocks.py\", "
                                     "line 12, in forward\n"
                                     "    return self.conv(x)\n" LIBRARY_FRAME,
         kConvMods, kOutConv),
    NODE("aten_relu_default", "relu.default", 2,
         MODEL_FRAME(
             "30",
             "x = self.features(x)") "  File \"/home/dev/proj/blocks.py\", "
                                     "line 13, in forward\n"
                                     "    return self.act(x)\n",
         kReluMods, kOutR),
    NODE("aten_mm_default", "mm.default", 3,
         MODEL_FRAME("31",
                     "x = self.head(x)") "  File \"/home/dev/proj/head.py\", "
                                         "line 8, in forward\n"
                                         "    return self.act(self.fc1(x))\n",
         kFc1Mods, kOutFc1),
    NODE("aten_relu_default_1", "relu.default", 4,
         MODEL_FRAME("31",
                     "x = self.head(x)") "  File \"/home/dev/proj/head.py\", "
                                         "line 8, in forward\n"
                                         "    return self.act(self.fc1(x))\n",
         kActMods, kOutAct),
    NODE("aten_add_tensor", "add.Tensor", 5,
         MODEL_FRAME("32", "x = self.classifier(x)"), kLinearMods, kOutLin),
    NODE("aten_sigmoid_default", "sigmoid.default", 6,
         MODEL_FRAME("32", "x = self.classifier(x)"), kSigmoidMods, kOutSig),
    NODE("aten_view_copy_default", "view_copy.default", 7,
         MODEL_FRAME("33", "return x.view(-1)"), kRootMods, kOutView),
};

static const int64_t kM1[] = {1}, kM2[] = {2}, kM34[] = {3, 4}, kM56[] = {5, 6},
                     kM7[] = {7}, kM3[] = {3}, kM4[] = {4};
static const etk_etrecord_handle_desc_t kModuleHandles[] = {{0, kM1, 1, false},
                                                            {1, kM2, 1, false},
                                                            {2, kM34, 2, true},
                                                            {3, kM56, 2, true},
                                                            {4, kM7, 1, false}};
static const etk_etrecord_delegate_id_desc_t kHeadIds[] = {{"0", kM3, 1},
                                                           {"1", kM4, 1}};
static const etk_etrecord_delegate_desc_t kModuleDelegates[] = {
    {2, "XnnpackBackend", kHeadIds, 2, 1}, {3, "XnnpackBackend", NULL, 0, 1}};

uint8_t *fixture_modules_etrecord(size_t *len) {
  etk_etrecord_method_desc_t m = {
      .name = "forward",
      .nodes = kModuleNodes,
      .node_count = sizeof kModuleNodes / sizeof kModuleNodes[0],
      .handles = kModuleHandles,
      .handle_count = sizeof kModuleHandles / sizeof kModuleHandles[0],
      .delegates = kModuleDelegates,
      .delegate_count = 2};
  return record_done(&m, 1, len);
}

/* ------------------------------------------------------- broken records */

uint8_t *fixture_etrecord_no_marker(size_t *len) {
  fixture_member_t m[] = {{.name = "debug_handle_map", .text = "{}"}};
  return fixture_zip(m, 1, len);
}

uint8_t *fixture_etrecord_bad_map(size_t *len) {
  fixture_member_t m[] = {
      {.name = "ETRECORD_V0", .text = ""},
      {.name = "debug_handle_map", .text = "{\"forward\": {\"0\": [1, }}"}};
  return fixture_zip(m, 2, len);
}

uint8_t *fixture_etrecord_bad_program(size_t *len) {
  fixture_member_t m[] = {
      {.name = "ETRECORD_V0", .text = ""},
      {.name = "edge_dialect_exported_program/forward",
       .text = "{\"graph_module\": {\"graph\": {\"nodes\": [\n  {\"name\": }"},
      {.name = "debug_handle_map", .text = "{\"forward\": {\"0\": 7}}"},
      {.name = "delegate_map", .text = "{}"},
      {.name = "instruction_id_to_num_outs_map", .text = "{}"}};
  return fixture_zip(m, 5, len);
}
