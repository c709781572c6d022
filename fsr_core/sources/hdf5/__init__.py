"""HDF5 simulation datasets: robomimic, ManiSkill and ALOHA/ACT files (h5py)."""
