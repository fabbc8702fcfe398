/*
 * op_table.c - which kernel runs each graph op, and the op's schema.
 *
 * An exported graph names ATen ops in their functional form
 * ("aten.convolution.default"; edge programs spell the same names after
 * "executorch.exir.dialects.edge.ops.", which etk_graph_node_t.op drops)
 * while etkit's kernels are the out variants ExecuTorch runs
 * ("aten::convolution.out").  Each row of the table below pairs the two
 * and writes down the op's arguments in schema order with PyTorch's
 * defaults, because export's serializer leaves out every argument equal
 * to its default.  View ops (view, permute, expand, ...) run on their
 * _copy kernels: the interpreter keeps every output anyway.
 *
 * The table is sorted by op name (strcmp order; checked by the tests
 * through etk_interp_op_supported on every row) and searched by bisection.
 * It is the one place that lists what the reference interpreter covers;
 * docs/numerics.md's op list is made from it.
 */
#include <string.h>

#include "op_table.h"

#define T INTERP_OUT_TENSORS
#define LIST INTERP_OUT_LIST
#define UNARY "self:T"
#define BIN_T "self:T other:T"
#define BIN_T_ALPHA "self:T other:T alpha:S=1"
#define BIN_S "self:T other:S"
#define BIN_S_ALPHA "self:T other:S alpha:S=1"
#define POOL_MAX                                                   \
  "self:T kernel_size:L stride:L=[] padding:L=0,0 dilation:L=1,1 " \
  "ceil_mode:B=0"
#define POOL_AVG                                                  \
  "self:T kernel_size:L stride:L=[] padding:L=0,0 ceil_mode:B=0 " \
  "count_include_pad:B=1 divisor_override:I?=None"
#define CONV                                                             \
  "input:T weight:T bias:T? stride:L padding:L dilation:L transposed:B " \
  "output_padding:L groups:I"
#define SLICE "self:T dim:I=0 start:I?=None end:I?=None step:I=1"
#define TO_COPY                                                        \
  "self:T dtype:X=None layout:X=None device:X=None pin_memory:X=None " \
  "non_blocking:B=0 memory_format:mf?=None"
#define SDPA                                                             \
  "query:T key:T value:T attn_mask:T?=None dropout_p:D=0 is_causal:B=0 " \
  "scale:D?=None enable_gqa:B=!0"
#define QUANT                                                         \
  "input:T scale:D zero_point:I quant_min:I quant_max:I dtype:dtype " \
  "out_dtype:X=None"
/* The interpreter keeps every value in contiguous (logical) order, so a
 * dim-order copy is a plain copy there: its dim_order goes to the kernel
 * as None (the out's own, contiguous, order).  Values do not depend on
 * the memory layout; the runtime honours the program's dim orders. */
#define DIM_ORDER_KARGS "self non_blocking #N"
/* upstream's backends/cortex_m (operators.py) */
#define CM_QUANT \
  "input:T scale:D zero_point:I quant_min:I quant_max:I dtype:dtype"
#define CM_CONV_TAIL                                         \
  "input_offset:I output_offset:I requantize_multipliers:T " \
  "requantize_shifts:T activation_min:I activation_max:I scratch:T?=None"
#define BATCH_NORM_EVAL \
  "input:T weight:T? bias:T? running_mean:T running_var:T momentum:D eps:D"

/* op, kernel, schema, kernel args, out kind, scratch outs, scratch dtype */
static const interp_op_t kOps[] = {
    {"aten._adaptive_avg_pool2d.default", "aten::_adaptive_avg_pool2d.out",
     "self:T output_size:L", NULL, T, 0, -1},
    {"aten._log_softmax.default", "aten::_log_softmax.out",
     "self:T dim:I half_to_float:B", NULL, T, 0, -1},
    {"aten._native_batch_norm_legit_no_training.default",
     "aten::_native_batch_norm_legit_no_training.out", BATCH_NORM_EVAL, NULL, T,
     0, -1},
    {"aten._softmax.default", "aten::_softmax.out",
     "self:T dim:I half_to_float:B", NULL, T, 0, -1},
    {"aten._to_copy.default", "aten::_to_copy.out", TO_COPY, NULL, T, 0, -1},
    {"aten._unsafe_view.default", "aten::view_copy.out", "self:T size:L", NULL,
     T, 0, -1},
    {"aten.abs.default", "aten::abs.out", UNARY, NULL, T, 0, -1},
    {"aten.adaptive_avg_pool2d.default", "aten::adaptive_avg_pool2d.out",
     "self:T output_size:L", NULL, T, 0, -1},
    {"aten.add.Scalar", "aten::add.Scalar_out", BIN_S_ALPHA, NULL, T, 0, -1},
    {"aten.add.Tensor", "aten::add.out", BIN_T_ALPHA, NULL, T, 0, -1},
    {"aten.addmm.default", "aten::addmm.out",
     "self:T mat1:T mat2:T beta:S=1 alpha:S=1", NULL, T, 0, -1},
    {"aten.alias.default", "aten::alias_copy.out", UNARY, NULL, T, 0, -1},
    {"aten.alias_copy.default", "aten::alias_copy.out", UNARY, NULL, T, 0, -1},
    {"aten.amax.default", "aten::amax.out", "self:T dim:L=[] keepdim:B=0", NULL,
     T, 0, -1},
    {"aten.amin.default", "aten::amin.out", "self:T dim:L=[] keepdim:B=0", NULL,
     T, 0, -1},
    {"aten.avg_pool2d.default", "aten::avg_pool2d.out", POOL_AVG, NULL, T, 0,
     -1},
    {"aten.batch_norm.default",
     "aten::_native_batch_norm_legit_no_training.out",
     "input:T weight:T? bias:T? running_mean:T running_var:T training:B=!0 "
     "momentum:D eps:D cudnn_enabled:X=1",
     "input weight bias running_mean running_var momentum eps", T, 2, -1},
    {"aten.bmm.default", "aten::bmm.out", "self:T mat2:T", NULL, T, 0, -1},
    {"aten.cat.default", "aten::cat.out", "tensors:TL dim:I=0", NULL, T, 0, -1},
    {"aten.clamp.default", "aten::clamp.out", "self:T min:S?=None max:S?=None",
     NULL, T, 0, -1},
    {"aten.clone.default", "aten::clone.out", "self:T memory_format:mf?=None",
     NULL, T, 0, -1},
    {"aten.constant_pad_nd.default", "aten::constant_pad_nd.out",
     "self:T pad:L value:S=0", NULL, T, 0, -1},
    {"aten.contiguous.default", "aten::clone.out",
     "self:T memory_format:mf?=None", NULL, T, 0, -1},
    {"aten.conv2d.default", "aten::convolution.out",
     "input:T weight:T bias:T?=None stride:L=1,1 padding:L=0,0 "
     "dilation:L=1,1 groups:I=1",
     "input weight bias stride padding dilation #B0 #L0,0 groups", T, 0, -1},
    {"aten.convolution.default", "aten::convolution.out", CONV, NULL, T, 0, -1},
    {"aten.detach.default", "aten::detach_copy.out", UNARY, NULL, T, 0, -1},
    {"aten.detach_copy.default", "aten::detach_copy.out", UNARY, NULL, T, 0,
     -1},
    {"aten.div.Scalar", "aten::div.Scalar_out", BIN_S, NULL, T, 0, -1},
    {"aten.div.Scalar_mode", "aten::div.Scalar_mode_out",
     "self:T other:S rounding_mode:str?", NULL, T, 0, -1},
    {"aten.div.Tensor", "aten::div.out", BIN_T, NULL, T, 0, -1},
    {"aten.div.Tensor_mode", "aten::div.out_mode",
     "self:T other:T rounding_mode:str?", NULL, T, 0, -1},
    {"aten.dropout.default", "aten::clone.out", "input:T p:X train:B=!0",
     "input #N", T, 0, -1},
    {"aten.embedding.default", "aten::embedding.out",
     "weight:T indices:T padding_idx:I=-1 scale_grad_by_freq:B=0 "
     "sparse:B=0",
     NULL, T, 0, -1},
    {"aten.exp.default", "aten::exp.out", UNARY, NULL, T, 0, -1},
    {"aten.expand.default", "aten::expand_copy.out",
     "self:T size:L implicit:B=0", NULL, T, 0, -1},
    {"aten.expand_copy.default", "aten::expand_copy.out",
     "self:T size:L implicit:B=0", NULL, T, 0, -1},
    {"aten.floor_divide.default", "aten::floor_divide.out", BIN_T, NULL, T, 0,
     -1},
    {"aten.gather.default", "aten::gather.out",
     "self:T dim:I index:T sparse_grad:B=0", NULL, T, 0, -1},
    {"aten.gelu.default", "aten::gelu.out", "self:T approximate:str=none", NULL,
     T, 0, -1},
    {"aten.hardswish.default", "aten::hardswish.out", UNARY, NULL, T, 0, -1},
    {"aten.hardtanh.default", "aten::hardtanh.out",
     "self:T min_val:S=-1 max_val:S=1", NULL, T, 0, -1},
    {"aten.index.Tensor", "aten::index.Tensor_out", "self:T indices:OTL", NULL,
     T, 0, -1},
    {"aten.index_select.default", "aten::index_select.out",
     "self:T dim:I index:T", NULL, T, 0, -1},
    {"aten.layer_norm.default", "aten::native_layer_norm.out",
     "input:T normalized_shape:L weight:T?=None bias:T?=None eps:D=1e-05 "
     "cudnn_enable:X=1",
     NULL, T, 2, -1},
    {"aten.leaky_relu.default", "aten::leaky_relu.out",
     "self:T negative_slope:S=0.01", NULL, T, 0, -1},
    {"aten.lift_fresh_copy.default", "aten::lift_fresh_copy.out", UNARY, NULL,
     T, 0, -1},
    {"aten.linear.default", "aten::linear.out", "input:T weight:T bias:T?=None",
     NULL, T, 0, -1},
    {"aten.log.default", "aten::log.out", UNARY, NULL, T, 0, -1},
    {"aten.log_softmax.int", "aten::log_softmax.int_out",
     "self:T dim:I dtype:dtype?=None", NULL, T, 0, -1},
    {"aten.max_pool2d.default", "aten::max_pool2d_with_indices.out", POOL_MAX,
     NULL, T, 1, 4 /* LONG */},
    {"aten.max_pool2d_with_indices.default",
     "aten::max_pool2d_with_indices.out", POOL_MAX, NULL, T, 0, -1},
    {"aten.maximum.default", "aten::maximum.out", BIN_T, NULL, T, 0, -1},
    {"aten.mean.dim", "aten::mean.out",
     "self:T dim:L? keepdim:B=0 dtype:dtype?=None", NULL, T, 0, -1},
    {"aten.minimum.default", "aten::minimum.out", BIN_T, NULL, T, 0, -1},
    {"aten.mm.default", "aten::mm.out", "self:T mat2:T", NULL, T, 0, -1},
    {"aten.mul.Scalar", "aten::mul.Scalar_out", BIN_S, NULL, T, 0, -1},
    {"aten.mul.Tensor", "aten::mul.out", BIN_T, NULL, T, 0, -1},
    {"aten.native_group_norm.default", "aten::native_group_norm.out",
     "input:T weight:T? bias:T? N:I C:I HxW:I group:I eps:D", NULL, T, 0, -1},
    {"aten.native_layer_norm.default", "aten::native_layer_norm.out",
     "input:T normalized_shape:L weight:T? bias:T? eps:D", NULL, T, 0, -1},
    {"aten.neg.default", "aten::neg.out", UNARY, NULL, T, 0, -1},
    {"aten.permute.default", "aten::permute_copy.out", "self:T dims:L", NULL, T,
     0, -1},
    {"aten.permute_copy.default", "aten::permute_copy.out", "self:T dims:L",
     NULL, T, 0, -1},
    {"aten.pow.Tensor_Scalar", "aten::pow.Tensor_Scalar_out",
     "self:T exponent:S", NULL, T, 0, -1},
    {"aten.pow.Tensor_Tensor", "aten::pow.Tensor_Tensor_out",
     "self:T exponent:T", NULL, T, 0, -1},
    {"aten.relu.default", "aten::relu.out", UNARY, NULL, T, 0, -1},
    {"aten.reshape.default", "aten::view_copy.out", "self:T shape:L", NULL, T,
     0, -1},
    {"aten.rsqrt.default", "aten::rsqrt.out", UNARY, NULL, T, 0, -1},
    {"aten.rsub.Scalar", "aten::rsub.Scalar_out", BIN_S_ALPHA, NULL, T, 0, -1},
    {"aten.scaled_dot_product_attention.default",
     "aten::scaled_dot_product_attention.out", SDPA, NULL, T, 0, -1},
    {"aten.select.int", "aten::select_copy.int_out", "self:T dim:I index:I",
     NULL, T, 0, -1},
    {"aten.select_copy.int", "aten::select_copy.int_out",
     "self:T dim:I index:I", NULL, T, 0, -1},
    {"aten.sigmoid.default", "aten::sigmoid.out", UNARY, NULL, T, 0, -1},
    {"aten.silu.default", "aten::silu.out", UNARY, NULL, T, 0, -1},
    {"aten.slice.Tensor", "aten::slice_copy.Tensor_out", SLICE, NULL, T, 0, -1},
    {"aten.slice_copy.Tensor", "aten::slice_copy.Tensor_out", SLICE, NULL, T, 0,
     -1},
    {"aten.softmax.int", "aten::softmax.int_out",
     "self:T dim:I dtype:dtype?=None", NULL, T, 0, -1},
    {"aten.split.Tensor", "aten::split_copy.Tensor_out",
     "self:T split_size:I dim:I=0", NULL, LIST, 0, -1},
    {"aten.split_copy.Tensor", "aten::split_copy.Tensor_out",
     "self:T split_size:I dim:I=0", NULL, LIST, 0, -1},
    {"aten.split_with_sizes.default", "aten::split_with_sizes_copy.out",
     "self:T split_sizes:L dim:I=0", NULL, LIST, 0, -1},
    {"aten.split_with_sizes_copy.default", "aten::split_with_sizes_copy.out",
     "self:T split_sizes:L dim:I=0", NULL, LIST, 0, -1},
    {"aten.sqrt.default", "aten::sqrt.out", UNARY, NULL, T, 0, -1},
    {"aten.squeeze.dim", "aten::squeeze_copy.dim_out", "self:T dim:I", NULL, T,
     0, -1},
    {"aten.squeeze.dims", "aten::squeeze_copy.dims_out", "self:T dim:L", NULL,
     T, 0, -1},
    {"aten.squeeze_copy.dim", "aten::squeeze_copy.dim_out", "self:T dim:I",
     NULL, T, 0, -1},
    {"aten.squeeze_copy.dims", "aten::squeeze_copy.dims_out", "self:T dim:L",
     NULL, T, 0, -1},
    {"aten.stack.default", "aten::stack.out", "tensors:TL dim:I=0", NULL, T, 0,
     -1},
    {"aten.sub.Scalar", "aten::sub.Scalar_out", BIN_S_ALPHA, NULL, T, 0, -1},
    {"aten.sub.Tensor", "aten::sub.out", BIN_T_ALPHA, NULL, T, 0, -1},
    {"aten.sum.dim_IntList", "aten::sum.IntList_out",
     "self:T dim:L? keepdim:B=0 dtype:dtype?=None", NULL, T, 0, -1},
    {"aten.t.default", "aten::t_copy.out", UNARY, NULL, T, 0, -1},
    {"aten.t_copy.default", "aten::t_copy.out", UNARY, NULL, T, 0, -1},
    {"aten.tanh.default", "aten::tanh.out", UNARY, NULL, T, 0, -1},
    {"aten.transpose.int", "aten::transpose_copy.int_out",
     "self:T dim0:I dim1:I", NULL, T, 0, -1},
    {"aten.transpose_copy.int", "aten::transpose_copy.int_out",
     "self:T dim0:I dim1:I", NULL, T, 0, -1},
    {"aten.unsqueeze.default", "aten::unsqueeze_copy.out", "self:T dim:I", NULL,
     T, 0, -1},
    {"aten.unsqueeze_copy.default", "aten::unsqueeze_copy.out", "self:T dim:I",
     NULL, T, 0, -1},
    {"aten.view.default", "aten::view_copy.out", "self:T size:L", NULL, T, 0,
     -1},
    {"aten.view_copy.default", "aten::view_copy.out", "self:T size:L", NULL, T,
     0, -1},
    {"aten.where.self", "aten::where.self_out", "condition:T self:T other:T",
     NULL, T, 0, -1},
    {"cortex_m.dequantize_per_tensor.default",
     "cortex_m::dequantize_per_tensor.out", CM_QUANT, NULL, T, 0, -1},
    {"cortex_m.maximum.default", "cortex_m::maximum.out", BIN_T, NULL, T, 0,
     -1},
    {"cortex_m.minimum.default", "cortex_m::minimum.out", BIN_T, NULL, T, 0,
     -1},
    {"cortex_m.pad.default", "cortex_m::pad.out",
     "input:T pre_pad:L post_pad:L pad_value:I", NULL, T, 0, -1},
    {"cortex_m.quantize_per_tensor.default",
     "cortex_m::quantize_per_tensor.out", CM_QUANT, NULL, T, 0, -1},
    {"cortex_m.quantized_activation.default",
     "cortex_m::quantized_activation.out", "input:T lut:T", NULL, T, 0, -1},
    {"cortex_m.quantized_add.default", "cortex_m::quantized_add.out",
     "self:T self_zero_point:I self_multiplier:I self_shift:I other:T "
     "other_zero_point:I other_multiplier:I other_shift:I "
     "output_zero_point:I output_multiplier:I output_shift:I "
     "activation_min:I activation_max:I",
     NULL, T, 0, -1},
    {"cortex_m.quantized_avg_pool2d.default",
     "cortex_m::quantized_avg_pool2d.out",
     "input:T kernel_size:L stride:L padding:L ceil_mode:B zero_point:I "
     "multiplier:I shift:I scratch:T?=None",
     NULL, T, 0, -1},
    {"cortex_m.quantized_batch_matmul.default",
     "cortex_m::quantized_batch_matmul.out",
     "lhs:T lhs_zero_point:I rhs_transposed:T rhs_zero_point:I "
     "output_zero_point:I output_multiplier:I output_shift:I scratch:T?=None",
     NULL, T, 0, -1},
    {"cortex_m.quantized_conv2d.default", "cortex_m::quantized_conv2d.out",
     "input:T weight:T bias:T? stride:L padding:L dilation:L " CM_CONV_TAIL,
     NULL, T, 0, -1},
    {"cortex_m.quantized_depthwise_conv2d.default",
     "cortex_m::quantized_depthwise_conv2d.out",
     "input:T weight:T bias:T? stride:L padding:L dilation:L "
     "depth_multiplier:I " CM_CONV_TAIL,
     NULL, T, 0, -1},
    {"cortex_m.quantized_div.default", "cortex_m::quantized_div.out",
     "self:T self_zero_point:I other:T other_zero_point:I "
     "output_zero_point:I output_scale:D",
     NULL, T, 0, -1},
    {"cortex_m.quantized_linear.default", "cortex_m::quantized_linear.out",
     "input:T weights:T bias:T? kernel_sum:T? input_offset:I "
     "filter_offset:I output_offset:I requantize_multipliers:L "
     "requantize_shifts:L activation_max:I activation_min:I",
     NULL, T, 0, -1},
    {"cortex_m.quantized_max_pool2d.default",
     "cortex_m::quantized_max_pool2d.out",
     "input:T kernel_size:L stride:L padding:L dilation:L ceil_mode:B "
     "input_zero_point:I output_zero_point:I activation_min:I "
     "activation_max:I",
     NULL, T, 0, -1},
    {"cortex_m.quantized_mul.default", "cortex_m::quantized_mul.out",
     "self:T self_zero_point:I other:T other_zero_point:I "
     "output_zero_point:I output_multiplier:I output_shift:I",
     NULL, T, 0, -1},
    {"cortex_m.quantized_transpose_conv2d.default",
     "cortex_m::quantized_transpose_conv2d.out",
     "input:T weight:T bias:T? stride:L padding:L output_padding:L "
     "dilation:L " CM_CONV_TAIL " output_scratch:T?=None",
     NULL, T, 0, -1},
    {"cortex_m.softmax.default", "cortex_m::softmax.out",
     "input:T dim:I input_zero_point:I output_zero_point:I "
     "input_multiplier:I input_shift:I diff_min:I",
     NULL, T, 0, -1},
    {"cortex_m.transpose.default", "cortex_m::transpose.out", "input:T perm:L",
     NULL, T, 0, -1},
    {"dim_order_ops._clone_dim_order.default",
     "dim_order_ops::_clone_dim_order.out",
     "self:T non_blocking:B=0 dim_order:L?=None", DIM_ORDER_KARGS, T, 0, -1},
    {"dim_order_ops._to_dim_order_copy.default",
     "dim_order_ops::_to_dim_order_copy.out",
     "self:T dtype:X=None layout:X=None device:X=None pin_memory:X=None "
     "non_blocking:B=0 dim_order:L?=None",
     DIM_ORDER_KARGS, T, 0, -1},
    {"quantized_decomposed.dequantize_per_tensor.default",
     "quantized_decomposed::dequantize_per_tensor.out", QUANT, NULL, T, 0, -1},
    {"quantized_decomposed.quantize_per_tensor.default",
     "quantized_decomposed::quantize_per_tensor.out", QUANT, NULL, T, 0, -1},
};

#define OP_COUNT (sizeof kOps / sizeof kOps[0])

const interp_op_t *interp_op_find(const char *op) {
  size_t lo = 0, hi = OP_COUNT;
  if (!op) return NULL;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = strcmp(op, kOps[mid].op);
    if (c == 0) return &kOps[mid];
    if (c < 0)
      hi = mid;
    else
      lo = mid + 1;
  }
  return NULL;
}

int etk_interp_op_supported(const char *op) {
  return interp_op_find(op) != NULL;
}

const char *etk_interp_op_name(size_t i) {
  return i < OP_COUNT ? kOps[i].op : NULL;
}
