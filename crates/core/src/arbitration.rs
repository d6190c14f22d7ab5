//! Command arbitration between submission queues, as an NVMe controller does it: which
//! queue the next command is fetched from when several tenants (namespaces, or jobs on
//! one namespace) have commands waiting.
//!
//! NVM Express Base Specification 2.0, "Command Arbitration" and the Arbitration feature
//! (Feature Identifier 01h). Two mechanisms:
//!
//! ```text
//! round robin:    queues take turns; a queue's turn fetches up to `burst` commands
//!                 (fewer if it runs out), then the next queue with a command goes
//! weighted round robin with urgent priority class:
//!   1. urgent queues first, strictly, round robin among them (with the burst)
//!   2. otherwise classes high, medium, low share by weight: a round grants each class
//!      `weight` commands; the first class in that order with commands and grant left
//!      is served, round robin among its queues (with the burst); when no class with
//!      waiting commands has grant left, a new round begins
//! ```
//!
//! The specification stores the weights and the burst zero-based and the burst as a
//! power of two (Arbitration Burst 111b = no limit); here they are plain counts, a burst
//! of 0 meaning no limit. What it leaves open, with the choice taken: the weights count
//! *commands* per round (the reading of most controllers and of SPDK's and QEMU's
//! emulations); the admin queue, which the specification serves above urgent, carries no
//! simulated commands and is not modelled.

use crate::spec::ConfigError;

/// A submission queue's priority class under weighted round robin.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Priority {
    /// Served before every other class, strictly.
    Urgent,
    /// The weighted class with weight `high`.
    High,
    /// The weighted class with weight `medium`.
    Medium,
    /// The weighted class with weight `low`.
    Low,
}

impl Priority {
    fn class(self) -> usize {
        match self {
            Priority::Urgent => 0,
            Priority::High => 1,
            Priority::Medium => 2,
            Priority::Low => 3,
        }
    }
}

/// Which arbitration the controller runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mechanism {
    /// Every queue alike (priorities ignored).
    RoundRobin,
    /// Weighted round robin with urgent priority class; weights in commands per round.
    WeightedRoundRobin {
        /// Commands per round for the high class (≥ 1).
        high: u32,
        /// Commands per round for the medium class (≥ 1).
        medium: u32,
        /// Commands per round for the low class (≥ 1).
        low: u32,
    },
}

/// Picks the submission queue of each next command.
#[derive(Clone, Debug)]
pub struct Arbiter {
    mechanism: Mechanism,
    /// Commands one turn may fetch from a queue (`u32::MAX` = no limit).
    burst: u32,
    /// Queue indices by class (round robin puts every queue in class 1).
    members: [Vec<usize>; 4],
    /// Where each class's round robin goes on from.
    cursor: [usize; 4],
    /// Each class's queue in its turn and the commands its turn may still fetch.
    turn: [Option<(usize, u32)>; 4],
    /// Grant left in this round for high, medium, low.
    grant: [u32; 3],
}

impl Arbiter {
    /// An arbiter over queues with these priorities. `burst` is commands per turn, 0 for
    /// no limit; `key` prefixes the keys errors name.
    pub fn new(
        mechanism: Mechanism,
        burst: u32,
        priorities: &[Priority],
        key: &str,
    ) -> Result<Arbiter, ConfigError> {
        if priorities.is_empty() {
            return Err(ConfigError::value(
                format!("{key}.queues"),
                0,
                "at least one submission queue",
            ));
        }
        if let Mechanism::WeightedRoundRobin { high, medium, low } = mechanism {
            for (name, w) in [("high", high), ("medium", medium), ("low", low)] {
                if !(1..=256).contains(&w) {
                    return Err(ConfigError::value(
                        format!("{key}.weight_{name}"),
                        w,
                        "1 to 256 commands per round (the specification's 8-bit weight + 1)",
                    ));
                }
            }
        }
        let mut members: [Vec<usize>; 4] = Default::default();
        for (q, p) in priorities.iter().enumerate() {
            let class = match mechanism {
                Mechanism::RoundRobin => 1,
                Mechanism::WeightedRoundRobin { .. } => p.class(),
            };
            members[class].push(q);
        }
        let mut a = Arbiter {
            mechanism,
            burst: if burst == 0 { u32::MAX } else { burst },
            members,
            cursor: [0; 4],
            turn: [None; 4],
            grant: [0; 3],
        };
        a.new_round();
        Ok(a)
    }

    fn new_round(&mut self) {
        if let Mechanism::WeightedRoundRobin { high, medium, low } = self.mechanism {
            self.grant = [high, medium, low];
        }
    }

    /// Round robin inside `class`: the queue in its turn goes on while its burst lasts and
    /// it has commands; otherwise the next queue after it with commands begins a turn.
    fn pick_in(&mut self, class: usize, pending: &dyn Fn(usize) -> bool) -> Option<usize> {
        if let Some((q, left)) = self.turn[class]
            && left > 0
            && pending(q)
        {
            self.turn[class] = Some((q, left - 1));
            return Some(q);
        }
        let n = self.members[class].len();
        for i in 0..n {
            let at = (self.cursor[class] + i) % n;
            let q = self.members[class][at];
            if pending(q) {
                self.cursor[class] = (at + 1) % n;
                self.turn[class] = Some((q, self.burst - 1));
                return Some(q);
            }
        }
        None
    }

    fn has_pending(&self, class: usize, pending: &dyn Fn(usize) -> bool) -> bool {
        self.members[class].iter().any(|&q| pending(q))
    }

    /// The queue to fetch the next command from, given which queues have one waiting;
    /// `None` when none has.
    pub fn next(&mut self, pending: &dyn Fn(usize) -> bool) -> Option<usize> {
        match self.mechanism {
            Mechanism::RoundRobin => self.pick_in(1, pending),
            Mechanism::WeightedRoundRobin { .. } => {
                if let Some(q) = self.pick_in(0, pending) {
                    return Some(q);
                }
                for _ in 0..2 {
                    for class in 1..4 {
                        if self.grant[class - 1] > 0 && self.has_pending(class, pending) {
                            self.grant[class - 1] -= 1;
                            return self.pick_in(class, pending);
                        }
                    }
                    // No class with waiting commands has grant left: a new round.
                    if !(1..4).any(|c| self.has_pending(c, pending)) {
                        return None;
                    }
                    self.new_round();
                }
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Priority::*;

    fn picks(a: &mut Arbiter, n: usize, pending: &dyn Fn(usize) -> bool) -> Vec<usize> {
        (0..n).map_while(|_| a.next(pending)).collect()
    }

    #[test]
    fn round_robin_takes_bursts_in_turn_and_skips_empty_queues() {
        let mut a = Arbiter::new(Mechanism::RoundRobin, 2, &[Low, High, Urgent], "x").unwrap();
        assert_eq!(picks(&mut a, 8, &|_| true), [0, 0, 1, 1, 2, 2, 0, 0]);
        let mut a = Arbiter::new(Mechanism::RoundRobin, 1, &[Low; 4], "x").unwrap();
        assert_eq!(picks(&mut a, 6, &|q| q != 1), [0, 2, 3, 0, 2, 3]);
        assert_eq!(a.next(&|_| false), None);
    }

    #[test]
    fn a_burst_of_zero_drains_a_queue_before_the_next() {
        let mut a = Arbiter::new(Mechanism::RoundRobin, 0, &[Low, Low], "x").unwrap();
        let left = std::cell::Cell::new(3);
        let pending = |q: usize| q == 1 || left.get() > 0;
        let mut got = vec![];
        for _ in 0..5 {
            let q = a.next(&pending).unwrap();
            if q == 0 {
                left.set(left.get() - 1);
            }
            got.push(q);
        }
        assert_eq!(got, [0, 0, 0, 1, 1]);
    }

    #[test]
    fn weighted_round_robin_shares_by_weight() {
        let wrr = Mechanism::WeightedRoundRobin {
            high: 3,
            medium: 2,
            low: 1,
        };
        let mut a = Arbiter::new(wrr, 1, &[Low, Medium, High], "x").unwrap();
        // One round: three from high, two from medium, one from low.
        assert_eq!(
            picks(&mut a, 12, &|_| true),
            [2, 2, 2, 1, 1, 0, 2, 2, 2, 1, 1, 0]
        );
        // An idle class gives its share to the others.
        let mut a = Arbiter::new(wrr, 1, &[Low, Medium, High], "x").unwrap();
        assert_eq!(picks(&mut a, 8, &|q| q != 2), [1, 1, 0, 1, 1, 0, 1, 1]);
    }

    #[test]
    fn urgent_queues_go_first_and_classes_rotate_their_queues() {
        let wrr = Mechanism::WeightedRoundRobin {
            high: 2,
            medium: 1,
            low: 1,
        };
        let mut a = Arbiter::new(wrr, 1, &[High, High, Urgent, Low], "x").unwrap();
        assert_eq!(picks(&mut a, 3, &|_| true), [2, 2, 2]);
        assert_eq!(picks(&mut a, 6, &|q| q != 2), [0, 1, 3, 0, 1, 3]);
    }

    #[test]
    fn bad_arbitration_settings_name_their_key() {
        let e = Arbiter::new(Mechanism::RoundRobin, 1, &[], "host.arbitration").unwrap_err();
        assert_eq!(e.key(), Some("host.arbitration.queues"));
        let wrr = Mechanism::WeightedRoundRobin {
            high: 0,
            medium: 1,
            low: 1,
        };
        let e = Arbiter::new(wrr, 1, &[Low], "host.arbitration").unwrap_err();
        assert_eq!(e.key(), Some("host.arbitration.weight_high"));
    }

    /// Over many rounds with every queue busy, each weighted class gets exactly its
    /// weight's share of each full round, and each queue inside a class an equal share.
    #[test]
    fn shares_match_the_weights_over_many_rounds() {
        for (h, m, l, burst) in [(4u32, 2u32, 1u32, 1u32), (5, 3, 2, 2), (1, 1, 1, 4)] {
            let wrr = Mechanism::WeightedRoundRobin {
                high: h,
                medium: m,
                low: l,
            };
            let prios = [High, High, Medium, Low, Low, Low];
            let mut a = Arbiter::new(wrr, burst, &prios, "x").unwrap();
            let rounds = 60 * (h + m + l) as usize;
            let mut per_queue = [0usize; 6];
            for q in picks(&mut a, rounds, &|_| true) {
                per_queue[q] += 1;
            }
            let class = |c: Priority| -> usize {
                (0..6)
                    .filter(|&q| prios[q] == c)
                    .map(|q| per_queue[q])
                    .sum()
            };
            assert_eq!(class(High), 60 * h as usize, "{h} {m} {l} {burst}");
            assert_eq!(class(Medium), 60 * m as usize);
            assert_eq!(class(Low), 60 * l as usize);
            assert!(per_queue[0].abs_diff(per_queue[1]) <= burst as usize);
        }
    }
}
