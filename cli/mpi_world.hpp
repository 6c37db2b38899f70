// canopy: the MPI job this process belongs to, if any (host-only; docs/scale-out.md). canopy builds
// with MPI when CMake finds it (Debian's Open MPI: tools/deps.sh installs it) and without otherwise;
// these calls exist in both builds, and without MPI a session cannot be opened.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace canopy::cli::mpi {

/// Whether this canopy was built with MPI.
bool built();

/// The size of the job that started this process, read from the launcher's environment (Open MPI's
/// OMPI_COMM_WORLD_SIZE, or PMI_SIZE / PMIX_SIZE of other launchers); 0 when no launcher started it.
int launched_size();

/// Whether this process is one of the ranks of an MPI job it can take part in (a launcher started it
/// and canopy was built with MPI). A build without MPI started as one of several ranks prints why
/// `command` cannot run (every rank would do `whole_job` alone) and the fix, and sets *refused (the
/// caller exits 2).
bool ranked(const char* command, const char* whole_job, bool* refused);

/// MPI_Init ... MPI_Finalize, and the few collectives canopy uses, over MPI_COMM_WORLD. One per process.
class session {
  public:
    session(); // throws canopy::error without MPI or when MPI fails to start
    ~session();
    session(const session&) = delete;
    session& operator=(const session&) = delete;

    int rank() const { return rank_; }
    int size() const { return size_; }
    /// Every rank's value, in rank order, on every rank.
    std::vector<std::uint64_t> allgather(std::uint64_t v) const;
    /// Sends to_rank[r] to rank r; returns what every rank sent here, concatenated in rank order.
    std::vector<std::uint32_t> alltoallv(const std::vector<std::vector<std::uint32_t>>& to_rank) const;
    /// True on every rank when v is true on every rank.
    bool all(bool v) const;
    /// A failure on this rank: prints it (naming the rank) and ends the whole job with exit code 1
    /// (MPI_Abort), since the other ranks would otherwise wait in their next collective for ever.
    [[noreturn]] void abort(const std::string& message) const;

  private:
    int rank_ = 0, size_ = 1;
    int unwinding_ = 0; // std::uncaught_exceptions() when the session opened
};

} // namespace canopy::cli::mpi
