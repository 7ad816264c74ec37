//! Seeded workload generators calibrated to the papers.
