//! The call graph around a symbol, explored breadth-first from the store's reference
//! tables into a petgraph `DiGraphMap` (caller → callee).
//!
//! The store keeps references flat and sorted for lookups; a call graph is the view of the
//! `call` references grouped by their enclosing definition. Exploring it into a real graph
//! gives cycle safety (recursion, mutual recursion) and one place for depth limits.

use std::collections::{BTreeMap, VecDeque};

use petgraph::graphmap::DiGraphMap;

use crate::store::Confidence;

/// A node of the explored call graph: a definition, or the name of a heuristic callee
/// that could be one of several definitions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum CallNode {
    Symbol(u32),
    /// Top-level code of a file (no enclosing definition).
    File(u32),
    /// A name matched heuristically (store name id).
    Name(u32),
}

/// One call site.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct CallSite {
    pub file: u32,
    pub line: u32,
    pub column: u32,
    pub confidence: Confidence,
}

/// The explored subgraph, with each edge's call sites and the depth it was found at.
pub(crate) struct CallGraph {
    pub graph: DiGraphMap<CallNode, u32>,
    pub sites: BTreeMap<(CallNode, CallNode), Vec<CallSite>>,
    /// The edge limit stopped the exploration before `depth` was reached everywhere.
    pub cut: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Direction {
    /// Who calls the start nodes.
    Callers,
    /// What the start nodes call.
    Callees,
}

/// Breadth-first exploration up to `depth` levels. `neighbours` lists, for a node, the
/// adjacent nodes in the chosen direction with the call site of each edge.
pub(crate) fn explore(
    start: &[CallNode],
    depth: usize,
    direction: Direction,
    max_edges: usize,
    neighbours: impl Fn(CallNode) -> Vec<(CallNode, CallSite)>,
) -> CallGraph {
    let mut graph = DiGraphMap::new();
    let mut sites: BTreeMap<(CallNode, CallNode), Vec<CallSite>> = BTreeMap::new();
    let mut queue: VecDeque<(CallNode, usize)> = VecDeque::new();
    for &node in start {
        graph.add_node(node);
        queue.push_back((node, 0));
    }
    let mut cut = false;
    while let Some((node, level)) = queue.pop_front() {
        if level >= depth {
            continue;
        }
        if graph.edge_count() >= max_edges {
            cut = true;
            continue;
        }
        for (next, site) in neighbours(node) {
            let (from, to) = match direction {
                Direction::Callers => (next, node),
                Direction::Callees => (node, next),
            };
            let seen = graph.contains_node(next);
            if !graph.contains_edge(from, to) {
                graph.add_edge(from, to, level as u32 + 1);
            }
            sites.entry((from, to)).or_default().push(site);
            // Heuristic names and file top levels are leaves: expanding them would mean
            // guessing which definition they are.
            if !seen && matches!(next, CallNode::Symbol(_)) {
                queue.push_back((next, level + 1));
            }
        }
    }
    CallGraph { graph, sites, cut }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site() -> CallSite {
        CallSite {
            file: 0,
            line: 1,
            column: 1,
            confidence: Confidence::Resolved,
        }
    }

    #[test]
    fn recursion_terminates_and_depth_is_respected() {
        // 0 → 1 → 2 → 0 (a cycle), 2 → 3
        let edges = [(0, 1), (1, 2), (2, 0), (2, 3)];
        let callees = |n: CallNode| match n {
            CallNode::Symbol(s) => edges
                .iter()
                .filter(|(a, _)| *a == s)
                .map(|&(_, b)| (CallNode::Symbol(b), site()))
                .collect(),
            _ => Vec::new(),
        };
        let all = explore(&[CallNode::Symbol(0)], 10, Direction::Callees, 100, callees);
        assert_eq!(all.graph.edge_count(), 4);
        let one = explore(&[CallNode::Symbol(0)], 1, Direction::Callees, 100, callees);
        assert_eq!(one.graph.edge_count(), 1);
        assert_eq!(
            one.graph
                .edge_weight(CallNode::Symbol(0), CallNode::Symbol(1)),
            Some(&1)
        );
    }
}
