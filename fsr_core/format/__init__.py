"""The FSR container: binary layout, writer, validating reader and recovery."""
