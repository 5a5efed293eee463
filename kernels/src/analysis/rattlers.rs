//! Rattlers and the coordination number without them. By counting constraints, a
//! frictionless contact blocks one degree of freedom, so a frictionless particle needs
//! DIM + 1 contacts to be held in place (the rattlers of frictionless packings: fewer than
//! d + 1 contacts, Göncü, Durán & Luding 2010); a frictional contact blocks DIM, so two
//! hold a frictional particle. Taking a rattler out takes a contact from each of its
//! partners, which may make them rattlers in turn, so the rule is applied until nothing
//! changes (a queue, O(N + contacts)).
use crate::math::DIM;

/// Contacts a frictionless particle needs so as not to be a rattler.
pub const HELD_FRICTIONLESS: u32 = DIM as u32 + 1;
/// Contacts a frictional particle needs.
pub const HELD_FRICTIONAL: u32 = 2;

/// Which of `n` particles are rattlers (fewer than `held` contacts, repeatedly), given the
/// pairs in contact (each pair once, both particles below `n`) and the contacts each
/// particle has with walls or with bodies that are not counted as particles (`fixed[p]`,
/// which never go away).
pub fn rattlers(n: usize, pairs: &[(u32, u32)], fixed: &[u32], held: u32) -> Vec<bool> {
    assert_eq!(fixed.len(), n);
    // Adjacency in compressed rows: the partners of p are adj[at[p]..at[p + 1]]. `at`
    // first holds where each row ends and is counted down as the rows are filled, which
    // leaves it at their starts.
    let mut count: Vec<u32> = fixed.to_vec();
    let mut at = vec![0u32; n + 1];
    for &(i, j) in pairs {
        at[i as usize] += 1;
        at[j as usize] += 1;
    }
    let mut total = 0;
    for p in 0..n {
        count[p] += at[p];
        total += at[p];
        at[p] = total;
    }
    at[n] = total;
    let mut adj = vec![0u32; total as usize];
    for &(i, j) in pairs {
        at[i as usize] -= 1;
        adj[at[i as usize] as usize] = j;
        at[j as usize] -= 1;
        adj[at[j as usize] as usize] = i;
    }
    let mut out = vec![false; n];
    let mut queue: Vec<u32> = (0..n as u32).filter(|&p| count[p as usize] < held).collect();
    for &p in &queue {
        out[p as usize] = true;
    }
    while let Some(p) = queue.pop() {
        for &q in &adj[at[p as usize] as usize..at[p as usize + 1] as usize] {
            let q = q as usize;
            if out[q] {
                continue;
            }
            count[q] -= 1;
            if count[q] < held {
                out[q] = true;
                queue.push(q as u32);
            }
        }
    }
    out
}

/// Mean contacts per particle, 2 C / N, of the pairs whose particles are both not
/// excluded (`None`: all), over the particles not excluded. Zero particles: zero.
pub fn coordination(n: usize, pairs: &[(u32, u32)], excluded: Option<&[bool]>) -> f64 {
    let out = |p: u32| excluded.is_some_and(|e| e[p as usize]);
    let kept = n - excluded.map_or(0, |e| e.iter().filter(|&&x| x).count());
    let c = pairs.iter().filter(|&&(i, j)| !out(i) && !out(j)).count();
    if kept == 0 {
        0.0
    } else {
        2.0 * c as f64 / kept as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Frictionless: a particle held by DIM cluster members and one more partner that is
    /// a rattler goes once that partner is gone; the cluster (each member touching every
    /// other: DIM + 1 partners) stays. Frictional: only the partner (one contact) goes.
    #[test]
    fn rattlers_peel_off_until_nothing_changes() {
        let k = DIM as u32 + 2;
        let mut pairs = Vec::new();
        for i in 0..k {
            for j in i + 1..k {
                pairs.push((i, j));
            }
        }
        // Particle k: DIM cluster members and particle k + 1 (HELD contacts at first).
        pairs.extend((0..DIM as u32).map(|m| (m, k)));
        pairs.push((k, k + 1));
        let n = k as usize + 2;
        let r = rattlers(n, &pairs, &vec![0; n], HELD_FRICTIONLESS);
        assert!(r[..k as usize].iter().all(|&x| !x), "{r:?}");
        assert!(r[k as usize..].iter().all(|&x| x), "{r:?}");
        // The cluster alone: DIM + 1 partners each.
        let z = coordination(n, &pairs, Some(&r));
        assert_eq!(z, (DIM + 1) as f64);
        // All of them: 2 C / N.
        assert_eq!(coordination(n, &pairs, None), 2.0 * pairs.len() as f64 / n as f64);
        assert_eq!(coordination(0, &[], None), 0.0);
        let r = rattlers(n, &pairs, &vec![0; n], HELD_FRICTIONAL);
        assert_eq!(r.iter().filter(|&&x| x).count(), 1);
        assert!(r[k as usize + 1]);
    }

    /// Contacts with walls hold a particle as well as particles do.
    #[test]
    fn wall_contacts_hold() {
        for held in [HELD_FRICTIONLESS, HELD_FRICTIONAL] {
            let fixed = vec![held, held - 1];
            assert_eq!(rattlers(2, &[], &fixed, held), vec![false, true]);
        }
    }
}
