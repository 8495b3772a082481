/* gpu_mem.cuh - device memory access the kernels share:
 *
 *   gs_vec16 / gs_ld_vec / gs_st_vec_cs   16-byte vector loads and streaming stores (LDG/STG.E.128)
 *   gs_cp_async_*                         asynchronous global -> shared copies (LDGSTS)
 *   gs_st_relaxed_* / gs_ld_relaxed_*     whole-word gpu-scope accesses for inter-block publication
 *   gs_st_release_u32 / gs_ld_acquire_u32 a flag that publishes the data written before it
 *   gs_to_bits / gs_from_bits             raw bits <-> value, for packing status words */
#ifndef GS_GPU_MEM_CUH
#define GS_GPU_MEM_CUH

#include "gpu_common.cuh"

/* ---- 16-byte vectors ----------------------------------------------------------------------- */
template <class T> struct alignas(16) gs_vec16 {
    static constexpr int N = 16 / (int)sizeof(T);
    T v[N];
};
/* p must be 16-byte aligned. */
template <class T> GS_DEV gs_vec16<T> gs_ld_vec(const T *p) { return *reinterpret_cast<const gs_vec16<T> *>(p); }
/* Asynchronous global -> shared copies (cp.async, LDGSTS): the data go straight to shared memory
 * without passing through registers, so a thread can have all of its loads in flight at once. A
 * thread sees its own copies after gs_cp_async_wait* (other threads: after that and a barrier).
 * 4- and 8-byte forms: naturally aligned addresses. */
GS_DEV unsigned gs_smem_u32(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }
/* dst: a shared-memory address already converted (gs_smem_u32), for loops that step it */
template <int N> GS_DEV void gs_cp_async_small_s(unsigned dst, const void *src)
{
    static_assert(N == 4 || N == 8, "4 or 8 bytes");
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(dst), "l"(src), "n"(N) : "memory");
}
template <int N> GS_DEV void gs_cp_async_small(void *dst, const void *src)
{
    gs_cp_async_small_s<N>(gs_smem_u32(dst), src);
}
/* 16 bytes, both addresses 16-byte aligned; cached in L2 only (.cg) */
GS_DEV void gs_cp_async_16(void *dst, const void *src)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(gs_smem_u32(dst)), "l"(src) : "memory");
}
GS_DEV void gs_cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
/* wait until at most N of this thread's committed groups are still in flight */
template <int N> GS_DEV void gs_cp_async_wait() { asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory"); }
GS_DEV void gs_cp_async_wait_all() { asm volatile("cp.async.wait_all;" ::: "memory"); }

/* Streaming (evict-first) 16-byte store for outputs nobody reads back soon. */
template <class T> GS_DEV void gs_st_vec_cs(T *p, const gs_vec16<T> &v)
{
    __stcs(reinterpret_cast<int4 *>(p), *reinterpret_cast<const int4 *>(&v));
}

/* ---- memory-model helpers for inter-block publication ------------------------------------------
 * Tile status words are written and read whole with one relaxed, gpu-scope access (8 or 16
 * bytes, aligned), so a reader sees flag and value of the same publication. */
GS_DEV void gs_st_relaxed_u64(uint64_t *p, uint64_t v)
{
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
GS_DEV uint64_t gs_ld_relaxed_u64(const uint64_t *p)
{
    uint64_t v;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}
GS_DEV void gs_st_relaxed_u128(ulonglong2 *p, ulonglong2 v)
{
    asm volatile("st.relaxed.gpu.global.v2.u64 [%0], {%1, %2};" ::"l"(p), "l"(v.x), "l"(v.y) : "memory");
}
GS_DEV ulonglong2 gs_ld_relaxed_u128(const ulonglong2 *p)
{
    ulonglong2 v;
    asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];" : "=l"(v.x), "=l"(v.y) : "l"(p) : "memory");
    return v;
}
GS_DEV void gs_st_release_u32(unsigned *p, unsigned v)
{
    asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
GS_DEV unsigned gs_ld_acquire_u32(const unsigned *p)
{
    unsigned v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

/* Raw bits <-> value for status packing. */
template <class T> GS_DEV uint64_t gs_to_bits(T v)
{
    static_assert(sizeof(T) <= 8, "");
    uint64_t b = 0;
    memcpy(&b, &v, sizeof(T));
    return b;
}
template <class T> GS_DEV T gs_from_bits(uint64_t b)
{
    T v;
    memcpy(&v, &b, sizeof(T));
    return v;
}

#endif
