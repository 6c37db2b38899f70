// cli/heartbeat.hpp's progress_line away from a terminal (a CI log): nothing for a short run, then one
// line at 30 s and one each time the elapsed time doubles — however often the caller updates it.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "../../cli/heartbeat.hpp"

namespace {

std::string contents(std::FILE* f) {
    std::rewind(f);
    std::string s;
    for (int c = std::fgetc(f); c != EOF; c = std::fgetc(f)) {
        s += static_cast<char>(c);
    }
    return s;
}

unsigned lines(const std::string& s) {
    unsigned n = 0;
    for (char c : s) {
        n += c == '\n';
    }
    return n;
}

TEST(ProgressLine, ALogGetsALineAt30sThenAtEachDoubling) {
    std::FILE* f = std::tmpfile(); // not a terminal
    ASSERT_NE(f, nullptr);
    {
        canopy::cli::progress_line line(f);
        for (unsigned t = 0; t <= 29; ++t) {
            line.update(t, "status " + std::to_string(t));
        }
        EXPECT_EQ(contents(f), "") << "a run shorter than 30 s prints no progress";
        std::fseek(f, 0, SEEK_END);
        for (unsigned t = 30; t <= 300; ++t) { // an update every second, as the heartbeat does
            line.update(t, "status " + std::to_string(t));
        }
    }
    const std::string s = contents(f);
    EXPECT_EQ(lines(s), 4u) << s; // 30, 60, 120, 240 s
    EXPECT_EQ(s, "status 30\nstatus 60\nstatus 120\nstatus 240\n");
    EXPECT_EQ(s.find('\r'), std::string::npos) << "no carriage returns in a log";
    std::fclose(f);
}

TEST(ProgressLine, ALateFirstUpdateSkipsThePassedThresholds) {
    std::FILE* f = std::tmpfile();
    ASSERT_NE(f, nullptr);
    {
        canopy::cli::progress_line line(f);
        line.update(100, "late"); // e.g. a callback every few million nodes
        line.update(110, "not yet");
        line.update(130, "again");
    }
    EXPECT_EQ(contents(f), "late\nagain\n");
    std::fclose(f);
}

} // namespace
