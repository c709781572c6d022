"""The built-in planar-arm simulator: numpy only, deterministic, always there.

A serial arm of revolute joints moving in a vertical plane, with rigid-body
dynamics, controllers driven by authored control chunks, tasks with overlay
data, software pinhole cameras, and a recorder that writes every run to FSR.
"""
