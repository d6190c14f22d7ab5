//! Flash translation layers (in progress).
