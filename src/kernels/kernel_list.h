/*
 * kernel_list.h - every built-in kernel, sorted by operator name (strcmp
 * order), as X(ident, "namespace::op.overload").
 *
 * The list is the single source of the registry table (registry.c) and of
 * the kernel prototypes below; etk_kernel_find binary-searches it, so a new
 * entry must go in its sorted place (tests/kernels checks the order).
 * ident names the functions etk_kernel_<ident> and etk_kernel_check_<ident>
 * that ETK_KERNEL_DEFINE emits in the operator family's .c file.
 */
#ifndef ETKIT_KERNEL_LIST_H
#define ETKIT_KERNEL_LIST_H

#include "etkit/kernels.h"

#define ETK_KERNEL_LIST(X)                                                    \
  X(adaptive_avg_pool2d_internal_out, "aten::_adaptive_avg_pool2d.out")       \
  X(local_scalar_dense, "aten::_local_scalar_dense")                          \
  X(log_softmax_internal_out, "aten::_log_softmax.out")                       \
  X(native_batch_norm_legit_no_training_out,                                  \
    "aten::_native_batch_norm_legit_no_training.out")                         \
  X(softmax_internal_out, "aten::_softmax.out")                               \
  X(to_copy_out, "aten::_to_copy.out")                                        \
  X(abs_out, "aten::abs.out")                                                 \
  X(adaptive_avg_pool2d_out, "aten::adaptive_avg_pool2d.out")                 \
  X(add_scalar_out, "aten::add.Scalar_out")                                   \
  X(add_out, "aten::add.out")                                                 \
  X(addmm_out, "aten::addmm.out")                                             \
  X(alias_copy_out, "aten::alias_copy.out")                                   \
  X(amax_out, "aten::amax.out")                                               \
  X(amin_out, "aten::amin.out")                                               \
  X(argmax_out, "aten::argmax.out")                                           \
  X(argmin_out, "aten::argmin.out")                                           \
  X(avg_pool2d_out, "aten::avg_pool2d.out")                                   \
  X(bmm_out, "aten::bmm.out")                                                 \
  X(cat_out, "aten::cat.out")                                                 \
  X(clamp_out, "aten::clamp.out")                                             \
  X(clone_out, "aten::clone.out")                                             \
  X(constant_pad_nd_out, "aten::constant_pad_nd.out")                         \
  X(convolution_out, "aten::convolution.out")                                 \
  X(detach_copy_out, "aten::detach_copy.out")                                 \
  X(div_scalar_mode_out, "aten::div.Scalar_mode_out")                         \
  X(div_scalar_out, "aten::div.Scalar_out")                                   \
  X(div_out, "aten::div.out")                                                 \
  X(div_out_mode, "aten::div.out_mode")                                       \
  X(embedding_out, "aten::embedding.out")                                     \
  X(exp_out, "aten::exp.out")                                                 \
  X(expand_copy_out, "aten::expand_copy.out")                                 \
  X(fill_scalar_out, "aten::fill.Scalar_out")                                 \
  X(floor_divide_out, "aten::floor_divide.out")                               \
  X(full_out, "aten::full.out")                                               \
  X(full_like_out, "aten::full_like.out")                                     \
  X(gather_out, "aten::gather.out")                                           \
  X(gelu_out, "aten::gelu.out")                                               \
  X(hardswish_out, "aten::hardswish.out")                                     \
  X(hardtanh_out, "aten::hardtanh.out")                                       \
  X(index_tensor_out, "aten::index.Tensor_out")                               \
  X(index_select_out, "aten::index_select.out")                               \
  X(leaky_relu_out, "aten::leaky_relu.out")                                   \
  X(lift_fresh_copy_out, "aten::lift_fresh_copy.out")                         \
  X(linear_out, "aten::linear.out")                                           \
  X(log_out, "aten::log.out")                                                 \
  X(log_softmax_int_out, "aten::log_softmax.int_out")                         \
  X(max_pool2d_with_indices_out, "aten::max_pool2d_with_indices.out")         \
  X(maximum_out, "aten::maximum.out")                                         \
  X(mean_out, "aten::mean.out")                                               \
  X(minimum_out, "aten::minimum.out")                                         \
  X(mm_out, "aten::mm.out")                                                   \
  X(mul_scalar_out, "aten::mul.Scalar_out")                                   \
  X(mul_out, "aten::mul.out")                                                 \
  X(native_group_norm_out, "aten::native_group_norm.out")                     \
  X(native_layer_norm_out, "aten::native_layer_norm.out")                     \
  X(neg_out, "aten::neg.out")                                                 \
  X(ones_out, "aten::ones.out")                                               \
  X(permute_copy_out, "aten::permute_copy.out")                               \
  X(pow_tensor_scalar_out, "aten::pow.Tensor_Scalar_out")                     \
  X(pow_tensor_tensor_out, "aten::pow.Tensor_Tensor_out")                     \
  X(relu_out, "aten::relu.out")                                               \
  X(rsqrt_out, "aten::rsqrt.out")                                             \
  X(rsub_scalar_out, "aten::rsub.Scalar_out")                                 \
  X(scalar_tensor_out, "aten::scalar_tensor.out")                             \
  X(scaled_dot_product_attention_out,                                         \
    "aten::scaled_dot_product_attention.out")                                 \
  X(select_copy_int_out, "aten::select_copy.int_out")                         \
  X(sigmoid_out, "aten::sigmoid.out")                                         \
  X(silu_out, "aten::silu.out")                                               \
  X(slice_copy_tensor_out, "aten::slice_copy.Tensor_out")                     \
  X(softmax_int_out, "aten::softmax.int_out")                                 \
  X(split_copy_tensor_out, "aten::split_copy.Tensor_out")                     \
  X(split_with_sizes_copy_out, "aten::split_with_sizes_copy.out")             \
  X(sqrt_out, "aten::sqrt.out")                                               \
  X(squeeze_copy_dim_out, "aten::squeeze_copy.dim_out")                       \
  X(squeeze_copy_dims_out, "aten::squeeze_copy.dims_out")                     \
  X(stack_out, "aten::stack.out")                                             \
  X(sub_scalar_out, "aten::sub.Scalar_out")                                   \
  X(sub_out, "aten::sub.out")                                                 \
  X(sum_intlist_out, "aten::sum.IntList_out")                                 \
  X(sym_numel, "aten::sym_numel")                                             \
  X(sym_size_int, "aten::sym_size.int")                                       \
  X(t_copy_out, "aten::t_copy.out")                                           \
  X(tanh_out, "aten::tanh.out")                                               \
  X(transpose_copy_int_out, "aten::transpose_copy.int_out")                   \
  X(unsqueeze_copy_out, "aten::unsqueeze_copy.out")                           \
  X(view_copy_out, "aten::view_copy.out")                                     \
  X(where_self_out, "aten::where.self_out")                                   \
  X(zeros_out, "aten::zeros.out")                                             \
  X(cm_dequantize_per_tensor_out, "cortex_m::dequantize_per_tensor.out")      \
  X(cm_maximum_out, "cortex_m::maximum.out")                                  \
  X(cm_minimum_out, "cortex_m::minimum.out")                                  \
  X(cm_pad_out, "cortex_m::pad.out")                                          \
  X(cm_quantize_per_tensor_out, "cortex_m::quantize_per_tensor.out")          \
  X(cm_quantized_activation_out, "cortex_m::quantized_activation.out")        \
  X(cm_quantized_add_out, "cortex_m::quantized_add.out")                      \
  X(cm_quantized_avg_pool2d_out, "cortex_m::quantized_avg_pool2d.out")        \
  X(cm_quantized_batch_matmul_out, "cortex_m::quantized_batch_matmul.out")    \
  X(cm_quantized_conv2d_out, "cortex_m::quantized_conv2d.out")                \
  X(cm_quantized_depthwise_conv2d_out,                                        \
    "cortex_m::quantized_depthwise_conv2d.out")                               \
  X(cm_quantized_div_out, "cortex_m::quantized_div.out")                      \
  X(cm_quantized_linear_out, "cortex_m::quantized_linear.out")                \
  X(cm_quantized_max_pool2d_out, "cortex_m::quantized_max_pool2d.out")        \
  X(cm_quantized_mul_out, "cortex_m::quantized_mul.out")                      \
  X(cm_quantized_transpose_conv2d_out,                                        \
    "cortex_m::quantized_transpose_conv2d.out")                               \
  X(cm_softmax_out, "cortex_m::softmax.out")                                  \
  X(cm_transpose_out, "cortex_m::transpose.out")                              \
  X(clone_dim_order_out, "dim_order_ops::_clone_dim_order.out")               \
  X(to_dim_order_copy_out, "dim_order_ops::_to_dim_order_copy.out")           \
  X(prim_add_scalar, "executorch_prim::add.Scalar")                           \
  X(prim_ceil_scalar, "executorch_prim::ceil.Scalar")                         \
  X(prim_eq_scalar, "executorch_prim::eq.Scalar")                             \
  X(prim_et_view_default, "executorch_prim::et_view.default")                 \
  X(prim_floordiv_scalar, "executorch_prim::floordiv.Scalar")                 \
  X(prim_floordiv_int, "executorch_prim::floordiv.int")                       \
  X(prim_ge_scalar, "executorch_prim::ge.Scalar")                             \
  X(prim_gt_scalar, "executorch_prim::gt.Scalar")                             \
  X(prim_le_scalar, "executorch_prim::le.Scalar")                             \
  X(prim_lt_scalar, "executorch_prim::lt.Scalar")                             \
  X(prim_mod_scalar, "executorch_prim::mod.Scalar")                           \
  X(prim_mod_int, "executorch_prim::mod.int")                                 \
  X(prim_mul_scalar, "executorch_prim::mul.Scalar")                           \
  X(prim_neg_scalar, "executorch_prim::neg.Scalar")                           \
  X(prim_round_scalar, "executorch_prim::round.Scalar")                       \
  X(prim_sub_scalar, "executorch_prim::sub.Scalar")                           \
  X(prim_sym_float_scalar, "executorch_prim::sym_float.Scalar")               \
  X(prim_sym_int_scalar, "executorch_prim::sym_int.Scalar")                   \
  X(prim_sym_max_scalar, "executorch_prim::sym_max.Scalar")                   \
  X(prim_sym_min_scalar, "executorch_prim::sym_min.Scalar")                   \
  X(prim_sym_not_scalar, "executorch_prim::sym_not.Scalar")                   \
  X(prim_truediv_scalar, "executorch_prim::truediv.Scalar")                   \
  X(prim_trunc_scalar, "executorch_prim::trunc.Scalar")                       \
  X(dequantize_per_tensor_out,                                                \
    "quantized_decomposed::dequantize_per_tensor.out")                        \
  X(quantize_per_tensor_out, "quantized_decomposed::quantize_per_tensor.out") \
  /* end */

#define ETK_KERNEL_DECLARE_(ident, name)                                      \
  int etk_kernel_##ident(etk_kernel_context_t *ctx, etk_value_t **args,       \
                         size_t nargs);                                       \
  int etk_kernel_check_##ident(etk_kernel_context_t *ctx, etk_value_t **args, \
                               size_t nargs);
ETK_KERNEL_LIST(ETK_KERNEL_DECLARE_)
#undef ETK_KERNEL_DECLARE_

#endif /* ETKIT_KERNEL_LIST_H */
