//! `half` arguments by value (`half_arg.cl`), run directly (without the driver) against host
//! references.
#![cfg(feature = "jit")]

mod common;
use common::*;

/// `x` rounded to the nearest half (ties to even; normal range only).
fn to_half(x: f64) -> f64 {
    if x == 0.0 {
        return x;
    }
    let e = x.abs().log2().floor().max(-14.0);
    let ulp = 2f64.powf(e - 10.0);
    (x / ulp).round_ties_even() * ulp
}

/// IEEE half bits of a float that is a half exactly.
fn half_bits(x: f32) -> u16 {
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    if x == 0.0 {
        return sign;
    }
    let e = ((b >> 23) & 0xff) as i32 - 127 + 15;
    assert!((1..31).contains(&e), "{x} is a normal half");
    sign | ((e as u16) << 10) | ((b >> 13) & 0x3ff) as u16
}

#[test]
fn half_arguments_by_value() {
    let p = program("half_arg");
    let k = p.kernel("half_args").unwrap();
    let sizes: Vec<u32> = k.info.args.iter().map(|a| a.size).collect();
    assert_eq!(sizes, [8, 2, 4, 4, 8, 8, 16, 32, 2]);
    let v: Vec<f32> = (0..32).map(|j| (j as f32 - 11.0) * 0.375).collect();
    let (s, f, after) = (1.5f32, 2.25f32, -7i16);
    let mut out = vec![f32::NAN; 40 * 4];
    let mut block = vec![0u8; k.info.args_size as usize];
    let mut put = |idx: usize, bytes: &[u8]| {
        let o = k.info.args[idx].offset as usize;
        block[o..o + bytes.len()].copy_from_slice(bytes);
    };
    let halves = |xs: &[f32]| -> Vec<u8> {
        xs.iter()
            .flat_map(|x| half_bits(*x).to_le_bytes())
            .collect()
    };
    put(0, &addr(&mut out).to_le_bytes());
    put(1, &halves(&[s]));
    put(2, &halves(&v[0..2]));
    put(3, &f.to_le_bytes());
    put(4, &halves(&v[2..6]));
    put(5, &halves(&v[6..10]));
    put(6, &halves(&v[10..18]));
    put(7, &halves(&v[16..32]));
    put(8, &after.to_le_bytes());
    let mut local_mem = vec![0u8; k.info.local_static_size as usize + 64];
    let mut private = vec![0u8; k.info.private_size as usize * 4 + 16];
    let mut ctx = zekit_spirv::GroupCtx {
        group_id: [0; 3],
        local_size: [4, 1, 1],
        num_groups: [1, 1, 1],
        global_offset: [0; 3],
        work_dim: 1,
        args: block.as_ptr() as usize,
        local_mem: local_mem.as_mut_ptr() as usize,
        private_mem: private.as_mut_ptr() as usize,
    };
    // SAFETY: the argument block holds every argument at its offset, `out` has the 40 floats
    // per work-item the kernel writes, local and private memory are as large as it reports.
    unsafe { k.run_group(&mut ctx) };
    for i in 0..4 {
        let o = &out[40 * i..40 * i + 40];
        let mut want = vec![s, to_half(f64::from(s) * i as f64 + f64::from(v[1])) as f32];
        want.extend(&v[0..2]);
        want.push(f);
        want.extend(&v[2..5]);
        want.extend(&v[6..10]);
        want.extend(&v[10..18]);
        want.extend(&v[16..32]);
        want.push(f32::from(after));
        want.push(to_half(f64::from(v[9]) * f64::from(v[9])) as f32);
        assert_eq!(&o[..38], &want[..], "item {i}");
    }
}
