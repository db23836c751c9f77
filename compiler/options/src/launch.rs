//! Where this process stands in a distributed run (`--distributed`): its rank, the number of
//! ranks, its rank on its host, and where the rendezvous store listens. Read once, at the
//! command line's edge, from the variables a launcher sets — MPI (`OMPI_COMM_WORLD_*`,
//! `PMI_*`), Slurm (`SLURM_*`) or torchrun-style (`RANK`, `WORLD_SIZE`, `LOCAL_RANK`) — and
//! `MASTER_ADDR`/`MASTER_PORT`, then passed down as a value ([`Launch`]).

use std::time::Duration;

/// How long a rank waits for any one step of the rendezvous or a transfer by default.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);

/// One process's place in a distributed run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Launch {
    /// This process's rank, `0..world`. Rank 0 reads the inputs and writes the results.
    pub rank: usize,
    /// How many processes run the program.
    pub world: usize,
    /// This process's rank among those of its host (which GPU it drives).
    pub local_rank: usize,
    /// The launcher the variables came from, for messages (`torchrun`, `Open MPI`, …).
    pub launcher: &'static str,
    /// Host of the rendezvous store (rank 0 listens there).
    pub master_addr: String,
    pub master_port: u16,
    /// Longest wait for a peer at any step (connecting, a value from the store, a transfer).
    pub timeout: Duration,
}

/// Why the launcher's variables do not describe a rank.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LaunchError {
    #[error(
        "--distributed needs a launcher: set RANK and WORLD_SIZE (torchrun), run under mpirun \
         (OMPI_COMM_WORLD_RANK/SIZE or PMI_RANK/SIZE) or srun (SLURM_PROCID, SLURM_NTASKS)"
    )]
    NoLauncher,
    #[error("{name} must be a number, not `{value}`")]
    NotANumber { name: &'static str, value: String },
    #[error("{rank_var}={rank} is not below {world_var}={world}")]
    RankOutOfRange {
        rank_var: &'static str,
        rank: usize,
        world_var: &'static str,
        world: usize,
    },
    #[error(
        "--distributed needs the rendezvous address: set MASTER_ADDR and MASTER_PORT to a \
         host and free port every rank can reach (rank 0 listens there){0}"
    )]
    NoMaster(String),
}

/// The variables of each launcher: rank, world size, local rank (optional).
const LAUNCHERS: [(&str, &str, &str, &str); 4] = [
    (
        "Open MPI",
        "OMPI_COMM_WORLD_RANK",
        "OMPI_COMM_WORLD_SIZE",
        "OMPI_COMM_WORLD_LOCAL_RANK",
    ),
    ("Slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"),
    ("torchrun", "RANK", "WORLD_SIZE", "LOCAL_RANK"),
    ("MPI (PMI)", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID"),
];

/// The launch the process environment describes (the command line calls this once).
pub fn launch_from_env() -> Result<Launch, LaunchError> {
    launch_from_vars(|name| std::env::var(name).ok())
}

/// [`launch_from_env`] over any source of variables (tests pass a map). The first launcher
/// whose rank and size variables are both set wins; a missing local rank is 0.
pub fn launch_from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Launch, LaunchError> {
    let number = |name: &'static str| -> Result<Option<usize>, LaunchError> {
        match var(name) {
            None => Ok(None),
            Some(v) => v
                .trim()
                .parse::<usize>()
                .map(Some)
                .map_err(|_| LaunchError::NotANumber { name, value: v }),
        }
    };
    for (launcher, rank_var, world_var, local_var) in LAUNCHERS {
        let (Some(rank), Some(world)) = (number(rank_var)?, number(world_var)?) else {
            continue;
        };
        if rank >= world {
            return Err(LaunchError::RankOutOfRange {
                rank_var,
                rank,
                world_var,
                world,
            });
        }
        let local_rank = number(local_var)?.unwrap_or(0);
        let addr = var("MASTER_ADDR").filter(|a| !a.trim().is_empty());
        let port = number("MASTER_PORT")?;
        let (master_addr, master_port) = match (addr, port) {
            (Some(a), Some(p)) if p > 0 && p <= u16::MAX as usize => {
                (a.trim().to_string(), p as u16)
            }
            (_, Some(p)) if p == 0 || p > u16::MAX as usize => {
                return Err(LaunchError::NoMaster(format!(
                    " (MASTER_PORT={p} is not a port)"
                )));
            }
            _ if world == 1 => ("127.0.0.1".to_string(), 0),
            _ => {
                return Err(LaunchError::NoMaster(format!(
                    " ({launcher} sets {rank_var})"
                )));
            }
        };
        return Ok(Launch {
            rank,
            world,
            local_rank,
            launcher,
            master_addr,
            master_port,
            timeout: DEFAULT_TIMEOUT,
        });
    }
    Err(LaunchError::NoLauncher)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn launch(vars: &[(&str, &str)]) -> Result<Launch, LaunchError> {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        launch_from_vars(|n| map.get(n).cloned())
    }

    const MASTER: [(&str, &str); 2] = [("MASTER_ADDR", "node1"), ("MASTER_PORT", "29500")];

    #[test]
    fn each_launcher_gives_rank_world_and_local_rank() {
        let cases: [(&[(&str, &str)], &str); 4] = [
            (
                &[("RANK", "3"), ("WORLD_SIZE", "4"), ("LOCAL_RANK", "1")],
                "torchrun",
            ),
            (
                &[
                    ("OMPI_COMM_WORLD_RANK", "3"),
                    ("OMPI_COMM_WORLD_SIZE", "4"),
                    ("OMPI_COMM_WORLD_LOCAL_RANK", "1"),
                ],
                "Open MPI",
            ),
            (
                &[
                    ("SLURM_PROCID", "3"),
                    ("SLURM_NTASKS", "4"),
                    ("SLURM_LOCALID", "1"),
                ],
                "Slurm",
            ),
            (
                &[
                    ("PMI_RANK", "3"),
                    ("PMI_SIZE", "4"),
                    ("MPI_LOCALRANKID", "1"),
                ],
                "MPI (PMI)",
            ),
        ];
        for (vars, name) in cases {
            let mut all = vars.to_vec();
            all.extend(MASTER);
            let l = launch(&all).unwrap();
            assert_eq!(
                (l.rank, l.world, l.local_rank, l.launcher),
                (3, 4, 1, name),
                "{vars:?}"
            );
            assert_eq!((l.master_addr.as_str(), l.master_port), ("node1", 29500));
        }
    }

    #[test]
    fn mpirun_inside_slurm_takes_the_mpi_variables() {
        let mut vars = vec![
            ("SLURM_PROCID", "0"),
            ("SLURM_NTASKS", "1"),
            ("OMPI_COMM_WORLD_RANK", "2"),
            ("OMPI_COMM_WORLD_SIZE", "3"),
        ];
        vars.extend(MASTER);
        let l = launch(&vars).unwrap();
        assert_eq!((l.rank, l.world, l.local_rank), (2, 3, 0));
    }

    #[test]
    fn bad_or_missing_variables_are_errors_naming_them() {
        assert_eq!(launch(&MASTER), Err(LaunchError::NoLauncher));
        let e = launch(&[("RANK", "x"), ("WORLD_SIZE", "2")]).unwrap_err();
        assert_eq!(e.to_string(), "RANK must be a number, not `x`");
        let e = launch(&[("RANK", "2"), ("WORLD_SIZE", "2")]).unwrap_err();
        assert_eq!(e.to_string(), "RANK=2 is not below WORLD_SIZE=2");
        let e = launch(&[("SLURM_PROCID", "0"), ("SLURM_NTASKS", "2")]).unwrap_err();
        assert!(e.to_string().contains("MASTER_ADDR"), "{e}");
        let e = launch(&[
            ("RANK", "0"),
            ("WORLD_SIZE", "2"),
            ("MASTER_ADDR", "h"),
            ("MASTER_PORT", "70000"),
        ])
        .unwrap_err();
        assert!(e.to_string().contains("MASTER_PORT=70000"), "{e}");
        // One rank needs no rendezvous.
        let l = launch(&[("RANK", "0"), ("WORLD_SIZE", "1")]).unwrap();
        assert_eq!((l.world, l.master_port), (1, 0));
    }
}
