//! [`ConfigError`] and the range checks live in [`crate::spec`], below the components
//! that validate their own sections; they are re-exported here under their old path.

// moved: remove after the workspace split
pub use crate::spec::{ConfigError, check_f64, check_range};
