//! The tree's invariants, checked in the tests and after a restore.
use super::*;

impl Quadtree {
    /// Checks the structure: every entry in the leaf whose square holds its centre (the
    /// root for centres outside the root), chains consistent with the counts, no empty
    /// interior node (one whose children are leaves holding at most one entry between
    /// them), free blocks unreachable. Err names the first problem.
    pub fn validate(&self) -> Result<(), String> {
        let nodes = self.nodes.len();
        let freed: std::collections::HashSet<u32> =
            self.free_blocks.iter().flat_map(|&b| b..b + CHILDREN as u32).collect();
        let mut seen = vec![false; self.owner.len()];
        let mut reach = vec![false; nodes];
        let mut stack = vec![0u32];
        while let Some(n) = stack.pop() {
            let nu = n as usize;
            if freed.contains(&n) {
                return Err(format!("node {n} is reachable but on the free list"));
            }
            reach[nu] = true;
            let ch = self.nodes[nu].child;
            if ch != NONE {
                if self.nodes[nu].head != NONE || self.nodes[nu].count != 0 {
                    return Err(format!("interior node {n} holds entries"));
                }
                let kids = ch as usize..ch as usize + CHILDREN;
                for c in kids.clone() {
                    if self.nodes[c].parent != n {
                        return Err(format!("node {c} does not name {n} as its parent"));
                    }
                }
                if kids
                    .clone()
                    .all(|c| self.nodes[c].child == NONE && self.nodes[c].count == 0)
                {
                    return Err(format!("node {n} has {CHILDREN} empty leaf children: not merged"));
                }
                stack.extend(ch..ch + CHILDREN as u32);
                continue;
            }
            let mut e = self.nodes[nu].head;
            let mut k = 0;
            let mut prev = NONE;
            while e != NONE {
                let eu = e as usize;
                if self.leaf[eu] != n || self.prev[eu] != prev {
                    return Err(format!("entry {e}: chain of leaf {n} broken"));
                }
                if seen[eu] {
                    return Err(format!("entry {e} is in two chains"));
                }
                seen[eu] = true;
                let c = self.centre[eu];
                if !self.rebuilt_only && self.leaf_box[eu] != self.leaf_square(n) {
                    return Err(format!("entry {e}: cached leaf square differs from leaf {n}'s"));
                }
                if !self.holds(n, self.key(c)) {
                    return Err(format!(
                        "entry {e} (particle {}) at {c:?} is outside its leaf {n}",
                        self.owner[eu]
                    ));
                }
                if k >= self.cap() && self.nodes[nu].depth < MAX_DEPTH {
                    return Err(format!(
                        "leaf {n} above the depth limit holds more than {} entries",
                        self.cap()
                    ));
                }
                prev = e;
                k += 1;
                e = self.next[eu];
            }
            if k != self.nodes[nu].count {
                return Err(format!(
                    "leaf {n}: count {} but {k} entries chained",
                    self.nodes[nu].count
                ));
            }
        }
        if let Some(e) = seen.iter().position(|&s| !s) {
            return Err(format!("entry {e} is in no leaf"));
        }
        if let Some(n) = (0..nodes).find(|&n| !reach[n] && !freed.contains(&(n as u32))) {
            return Err(format!("node {n} is neither reachable nor free"));
        }
        Ok(())
    }
}
