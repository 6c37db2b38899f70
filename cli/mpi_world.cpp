// canopy: the MPI job (mpi_world.hpp). Without CANOPY_WITH_MPI every session constructor throws.
#include "mpi_world.hpp"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "canopy/vocabulary/error.hpp"

#if defined(CANOPY_WITH_MPI)
#    include <mpi.h>
#endif

namespace canopy::cli::mpi {

int launched_size() {
    for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE"}) {
        if (const char* v = std::getenv(name)) {
            const int n = std::atoi(v);
            return n > 0 ? n : 1;
        }
    }
    return 0;
}

bool ranked(const char* command, const char* whole_job, bool* refused) {
    const int launched = launched_size();
    *refused = launched > 1 && !built();
    if (*refused) {
        std::fprintf(stderr,
                     "%s: started by mpirun as one of %d ranks, but this canopy was built without MPI, so "
                     "every rank would %s: install Open MPI (tools/deps.sh installs libopenmpi-dev and "
                     "openmpi-bin) and configure again, or run canopy without mpirun\n",
                     command, launched, whole_job);
    }
    return launched > 0 && built();
}

#if defined(CANOPY_WITH_MPI)

bool built() { return true; }

namespace {
void check(int rc, const char* what) {
    if (rc != MPI_SUCCESS) {
        char text[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(rc, text, &len);
        throw error(std::string("canopy: MPI: ") + what +
                    " failed: " + std::string(text, static_cast<std::size_t>(len)));
    }
}
} // namespace

session::session() : unwinding_(std::uncaught_exceptions()) {
    int ok = 0;
    MPI_Initialized(&ok);
    if (ok) {
        throw error("canopy: MPI is already initialized in this process (one session per process)");
    }
    // Errors return codes (checked below) instead of aborting the job without a message.
    check(MPI_Init(nullptr, nullptr), "MPI_Init");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
    check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
}

session::~session() {
    if (std::uncaught_exceptions() > unwinding_) {
        // Leaving by an exception the caller did not hand to abort(): MPI_Finalize could wait for ranks
        // that wait in a collective for this one. End the job instead of hanging it.
        std::fputs("canopy: error: a rank failed during an MPI job; ending the job\n", stderr);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Finalize();
}

void session::abort(const std::string& message) const {
    std::fprintf(stderr, "canopy: error (rank %d of %d): %s\n", rank_, size_, message.c_str());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    std::exit(1); // MPI_Abort does not return; this is for the compiler
}

std::vector<std::uint64_t> session::allgather(std::uint64_t v) const {
    std::vector<std::uint64_t> all(static_cast<std::size_t>(size_));
    check(MPI_Allgather(&v, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD), "MPI_Allgather");
    return all;
}

std::vector<std::uint32_t> session::alltoallv(const std::vector<std::vector<std::uint32_t>>& to_rank) const {
    const auto n = static_cast<std::size_t>(size_);
    if (to_rank.size() != n) {
        throw error("canopy: MPI: alltoallv needs one buffer per rank");
    }
    std::vector<int> send_counts(n), send_displs(n), recv_counts(n), recv_displs(n);
    std::vector<std::uint32_t> send;
    for (std::size_t r = 0; r < n; ++r) {
        send_displs[r] = static_cast<int>(send.size());
        send_counts[r] = static_cast<int>(to_rank[r].size());
        send.insert(send.end(), to_rank[r].begin(), to_rank[r].end());
    }
    // The counts first, so that every rank can size its receive buffer.
    check(MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, MPI_COMM_WORLD),
          "MPI_Alltoall");
    int total = 0;
    for (std::size_t r = 0; r < n; ++r) {
        recv_displs[r] = total;
        total += recv_counts[r];
    }
    std::vector<std::uint32_t> recv(static_cast<std::size_t>(total));
    check(MPI_Alltoallv(send.data(), send_counts.data(), send_displs.data(), MPI_UINT32_T, recv.data(),
                        recv_counts.data(), recv_displs.data(), MPI_UINT32_T, MPI_COMM_WORLD),
          "MPI_Alltoallv");
    return recv;
}

bool session::all(bool v) const {
    int in = v ? 1 : 0, out = 0;
    check(MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD), "MPI_Allreduce");
    return out != 0;
}

#else

bool built() { return false; }

session::session() {
    throw error("canopy was built without MPI: install Open MPI (tools/deps.sh installs libopenmpi-dev and "
                "openmpi-bin) and configure again");
}
session::~session() { (void)unwinding_; }
std::vector<std::uint64_t> session::allgather(std::uint64_t v) const { return {v}; }
std::vector<std::uint32_t> session::alltoallv(const std::vector<std::vector<std::uint32_t>>& to_rank) const {
    return to_rank.empty() ? std::vector<std::uint32_t>{} : to_rank[0];
}
bool session::all(bool v) const { return v; }
void session::abort(const std::string& message) const {
    std::fprintf(stderr, "canopy: error: %s\n", message.c_str());
    std::exit(1);
}

#endif

} // namespace canopy::cli::mpi
