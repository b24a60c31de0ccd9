"""Benchmarks behind `pqfast bench` (timing loops are C++; this formats)."""
