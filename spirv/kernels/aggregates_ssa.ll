; Structs and arrays as SSA values, the way LLVM front ends other than clang's OpenCL C emit
; them (clang passes aggregates through memory on spir64): insertvalue/extractvalue, a struct
; returned by value, select and phi of aggregates, whole loads and stores, aggregate constants,
; a nested insert, a padded struct with a vector member (whole stores and loads checked against
; member-by-member access chains).
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024"
target triple = "spir64"

%float2x = type { float, float }
%mixed = type { i32, float, i64 }
%nested = type { %mixed, [3 x i32] }
%withvec = type { i16, <2 x i32>, i32 }

@table = internal addrspace(1) constant [4 x i32] [i32 10, i32 20, i32 30, i32 40], align 4

declare spir_func i64 @_Z13get_global_idj(i32)

define internal spir_func %float2x @swap2(%float2x %v) #0 {
  %x = extractvalue %float2x %v, 0
  %y = extractvalue %float2x %v, 1
  %r0 = insertvalue %float2x undef, float %y, 0
  %r1 = insertvalue %float2x %r0, float %x, 1
  ret %float2x %r1
}

define internal spir_func %mixed @make_mixed(i32 %i) #0 {
  %a = mul i32 %i, 3
  %f = sitofp i32 %i to float
  %b = fmul float %f, 0.5
  %w = sext i32 %i to i64
  %c = shl i64 %w, 33
  %m0 = insertvalue %mixed zeroinitializer, i32 %a, 0
  %m1 = insertvalue %mixed %m0, float %b, 1
  %m2 = insertvalue %mixed %m1, i64 %c, 2
  ret %mixed %m2
}

define spir_kernel void @aggregates_ssa(float addrspace(1)* %in, float addrspace(1)* %out, %nested addrspace(1)* %whole, i64 addrspace(1)* %sums) !kernel_arg_addr_space !1 !kernel_arg_access_qual !2 !kernel_arg_type !3 !kernel_arg_base_type !3 !kernel_arg_type_qual !4 {
entry:
  %slot = alloca %float2x, align 4
  %vslot = alloca %withvec, align 8
  %vslot2 = alloca %withvec, align 8
  %gid = call spir_func i64 @_Z13get_global_idj(i32 0)
  %i = trunc i64 %gid to i32
  %i2 = shl i64 %gid, 1
  %i21 = or i64 %i2, 1
  %p0 = getelementptr inbounds float, float addrspace(1)* %in, i64 %i2
  %p1 = getelementptr inbounds float, float addrspace(1)* %in, i64 %i21
  %x = load float, float addrspace(1)* %p0, align 4
  %y = load float, float addrspace(1)* %p1, align 4
  %v0 = insertvalue %float2x undef, float %x, 0
  %v = insertvalue %float2x %v0, float %y, 1
  %s = call spir_func %float2x @swap2(%float2x %v)
  %odd = trunc i32 %i to i1
  %t = select i1 %odd, %float2x %s, %float2x %v
  store %float2x %t, %float2x* %slot, align 4
  %u = load %float2x, %float2x* %slot, align 4
  %tx = extractvalue %float2x %u, 0
  %ty = extractvalue %float2x %u, 1
  %q0 = getelementptr inbounds float, float addrspace(1)* %out, i64 %i2
  %q1 = getelementptr inbounds float, float addrspace(1)* %out, i64 %i21
  store float %tx, float addrspace(1)* %q0, align 4
  store float %ty, float addrspace(1)* %q1, align 4
  %m = call spir_func %mixed @make_mixed(i32 %i)
  %is5 = icmp eq i32 %i, 5
  %mm = select i1 %is5, %mixed { i32 7, float 2.5, i64 -1 }, %mixed %m
  %arr0 = insertvalue [3 x i32] undef, i32 %i, 0
  %ip1 = add i32 %i, 1
  %arr1 = insertvalue [3 x i32] %arr0, i32 %ip1, 1
  %sq = mul i32 %i, %i
  %arr2 = insertvalue [3 x i32] %arr1, i32 %sq, 2
  %rot = urem i32 %i, 3
  br label %loop

loop:
  %k = phi i32 [ 0, %entry ], [ %k1, %loop ]
  %a = phi [3 x i32] [ %arr2, %entry ], [ %a1, %loop ]
  %e0 = extractvalue [3 x i32] %a, 0
  %e1 = extractvalue [3 x i32] %a, 1
  %e2 = extractvalue [3 x i32] %a, 2
  %b0 = insertvalue [3 x i32] undef, i32 %e1, 0
  %b1 = insertvalue [3 x i32] %b0, i32 %e2, 1
  %a1 = insertvalue [3 x i32] %b1, i32 %e0, 2
  %k1 = add i32 %k, 1
  %more = icmp ule i32 %k1, %rot
  br i1 %more, label %loop, label %done

done:
  %n0 = insertvalue %nested undef, %mixed %mm, 0
  %n = insertvalue %nested %n0, [3 x i32] %a1, 1
  %c1 = extractvalue %mixed %mm, 2
  %c2 = add i64 %c1, 1
  %nn = insertvalue %nested %n, i64 %c2, 0, 2
  %wp = getelementptr inbounds %nested, %nested addrspace(1)* %whole, i64 %gid
  store %nested %nn, %nested addrspace(1)* %wp, align 8
  %c = load %nested, %nested addrspace(1)* %wp, align 8
  %ca = extractvalue %nested %c, 0, 0
  %cb = extractvalue %nested %c, 0, 1
  %cc = extractvalue %nested %c, 0, 2
  %d0 = extractvalue %nested %c, 1, 0
  %d1 = extractvalue %nested %c, 1, 1
  %d2 = extractvalue %nested %c, 1, 2
  %tbl = load [4 x i32], [4 x i32] addrspace(1)* @table, align 4
  %t2 = extractvalue [4 x i32] %tbl, 2
  %vv0 = insertelement <2 x i32> undef, i32 %ca, i32 0
  %vv = insertelement <2 x i32> %vv0, i32 %d2, i32 1
  %h = trunc i32 %ca to i16
  %w00 = insertvalue %withvec undef, i16 %h, 0
  %w0 = insertvalue %withvec %w00, <2 x i32> %vv, 1
  %w1 = insertvalue %withvec %w0, i32 %t2, 2
  ; A whole store read back member by member (padded offsets 0, 8, 16) ...
  store %withvec %w1, %withvec* %vslot, align 8
  %ph = getelementptr inbounds %withvec, %withvec* %vslot, i64 0, i32 0
  %wh = load i16, i16* %ph, align 8
  %pd2 = getelementptr inbounds %withvec, %withvec* %vslot, i64 0, i32 1, i32 1
  %vd2 = load i32, i32* %pd2, align 4
  %pt2 = getelementptr inbounds %withvec, %withvec* %vslot, i64 0, i32 2
  %vt2 = load i32, i32* %pt2, align 8
  ; ... and stores member by member read back whole.
  %qh = getelementptr inbounds %withvec, %withvec* %vslot2, i64 0, i32 0
  store i16 %wh, i16* %qh, align 8
  %qv = getelementptr inbounds %withvec, %withvec* %vslot2, i64 0, i32 1
  %vv2 = insertelement <2 x i32> %vv, i32 %vd2, i32 1
  store <2 x i32> %vv2, <2 x i32>* %qv, align 8
  %qt = getelementptr inbounds %withvec, %withvec* %vslot2, i64 0, i32 2
  store i32 %vt2, i32* %qt, align 8
  %w2 = load %withvec, %withvec* %vslot2, align 8
  %wh2 = extractvalue %withvec %w2, 0
  %wv = extractvalue %withvec %w2, 1
  %wd2 = extractelement <2 x i32> %wv, i32 1
  %wt2 = extractvalue %withvec %w2, 2
  %sa = sext i32 %ca to i64
  %sb = fptosi float %cb to i64
  %s1 = add i64 %sa, %sb
  %s2 = add i64 %s1, %cc
  %x0 = add i32 %d0, %d1
  %x1 = add i32 %x0, %wd2
  %x2 = add i32 %x1, %wt2
  %swh = sext i16 %wh2 to i32
  %x3 = add i32 %x2, %swh
  %sx = sext i32 %x3 to i64
  %s3 = add i64 %s2, %sx
  %sp = getelementptr inbounds i64, i64 addrspace(1)* %sums, i64 %gid
  store i64 %s3, i64 addrspace(1)* %sp, align 8
  ret void
}

attributes #0 = { noinline nounwind }

!opencl.ocl.version = !{!0}
!opencl.spir.version = !{!0}
!0 = !{i32 2, i32 0}
!1 = !{i32 1, i32 1, i32 1, i32 1}
!2 = !{!"none", !"none", !"none", !"none"}
!3 = !{!"float*", !"float*", !"nested_t*", !"long*"}
!4 = !{!"", !"", !"", !""}
