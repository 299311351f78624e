//! Seed 000 (Lowy & Razaviyayn): excess-risk bounds of output perturbation.
