//! One registry of named specs for every pluggable family (FTLs, GC victim policies,
//! write-buffer policies, workload generators, trace formats): the built-in specs as a
//! `'static` list, one line per algorithm in its family's file, and the specs a plug-in
//! or a test adds at run time after them.
//!
//! Every family used to keep its own copy of the same four pieces — a lock over the added
//! specs, `register`, "every spec" and "the spec named x" — with small differences in how
//! a taken name or a poisoned lock was treated. Here they are written once: a taken name
//! is refused (the family turns [`Taken`] into its own error), and a lock poisoned by a
//! panicking registration is still read, since a registration either pushed its spec or
//! did not.
//!
//! It knows nothing of what a spec holds beyond its name ([`Named`]).

use std::sync::RwLock;

/// A spec a [`Registry`] can hold: it has a unique name (as in config files and flags)
/// and a one-line summary (for listings).
pub trait Named: Sync + 'static {
    /// The registered name.
    fn name(&self) -> &'static str;
    /// One line for `ssdlab list` and `--help`.
    fn summary(&self) -> &'static str;
}

/// A registration refused because the name is taken (by a built-in or an earlier
/// registration of a different spec).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Taken(pub &'static str);

/// The built-in specs of one family and those registered at run time, in that order.
pub struct Registry<S: 'static> {
    builtin: &'static [&'static S],
    extra: RwLock<Vec<&'static S>>,
}

impl<S: Named> Registry<S> {
    /// A registry over the built-in list (usable in a `static`).
    pub const fn new(builtin: &'static [&'static S]) -> Registry<S> {
        Registry {
            builtin,
            extra: RwLock::new(Vec::new()),
        }
    }

    /// The built-in specs alone.
    pub fn builtin(&self) -> &'static [&'static S] {
        self.builtin
    }

    /// Every spec: the built-ins, then the registered ones in registration order.
    pub fn all(&self) -> Vec<&'static S> {
        let extra = self.extra.read().unwrap_or_else(|e| e.into_inner());
        self.builtin
            .iter()
            .copied()
            .chain(extra.iter().copied())
            .collect()
    }

    /// The spec named `name` exactly.
    pub fn get(&self, name: &str) -> Option<&'static S> {
        if let Some(s) = self.builtin.iter().find(|s| s.name() == name) {
            return Some(s);
        }
        let extra = self.extra.read().unwrap_or_else(|e| e.into_inner());
        extra.iter().find(|s| s.name() == name).copied()
    }

    /// Adds `spec` after the others, for the rest of the process; refused when its name
    /// is taken. Registering the very same spec again is refused too: the caller decides
    /// whether that is an error (see [`Registry::holds`]).
    pub fn register(&self, spec: &'static S) -> Result<(), Taken> {
        let mut extra = self.extra.write().unwrap_or_else(|e| e.into_inner());
        let taken = self
            .builtin
            .iter()
            .chain(extra.iter())
            .any(|s| s.name() == spec.name());
        if taken {
            return Err(Taken(spec.name()));
        }
        extra.push(spec);
        Ok(())
    }

    /// Whether `spec` itself (not merely its name) is registered.
    pub fn holds(&self, spec: &'static S) -> bool {
        self.get(spec.name()).is_some_and(|s| std::ptr::eq(s, spec))
    }

    /// Every name, in order.
    pub fn names(&self) -> Vec<&'static str> {
        self.all().iter().map(|s| s.name()).collect()
    }

    /// serde's message for a name no spec has ([`unknown_variant`]).
    pub fn unknown(&self, name: &str) -> String {
        unknown_variant(name, &self.names())
    }

    /// Every name with its summary, in order.
    pub fn described(&self) -> Vec<(&'static str, &'static str)> {
        self.all().iter().map(|s| (s.name(), s.summary())).collect()
    }
}

/// serde's message for an unknown enum variant, word for word ("unknown variant `x`,
/// expected one of `a`, `b`, `c`"), so a mistyped name reads as it did when the
/// registries were enums.
pub fn unknown_variant(name: &str, names: &[&str]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    let expected = match quoted.len() {
        0 => "there are no variants".to_string(),
        1 => format!("expected {}", quoted[0]),
        2 => format!("expected {} or {}", quoted[0], quoted[1]),
        _ => format!("expected one of {}", quoted.join(", ")),
    };
    format!("unknown variant `{name}`, {expected}")
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Spec(&'static str);
    impl Named for Spec {
        fn name(&self) -> &'static str {
            self.0
        }
        fn summary(&self) -> &'static str {
            "a test spec"
        }
    }

    static A: Spec = Spec("a");
    static B: Spec = Spec("b");
    static C: Spec = Spec("c");
    static C2: Spec = Spec("c");

    #[test]
    fn built_ins_come_first_then_registrations_and_a_taken_name_is_refused() {
        static R: Registry<Spec> = Registry::new(&[&A, &B]);
        assert_eq!(R.names(), ["a", "b"]);
        assert_eq!(R.register(&A), Err(Taken("a")));
        assert_eq!(R.register(&C), Ok(()));
        assert_eq!(R.names(), ["a", "b", "c"]);
        assert!(std::ptr::eq(R.get("c").unwrap(), &C));
        assert_eq!(R.register(&C2), Err(Taken("c")));
        assert!(R.holds(&C) && !R.holds(&C2));
        assert!(R.get("d").is_none());
        assert_eq!(R.described()[2], ("c", "a test spec"));
        assert_eq!(R.builtin().len(), 2);
        assert_eq!(
            R.unknown("x"),
            "unknown variant `x`, expected one of `a`, `b`, `c`"
        );
    }
}
