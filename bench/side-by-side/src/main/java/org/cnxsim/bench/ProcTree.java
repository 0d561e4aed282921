package org.cnxsim.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Resident memory of a process and everything it started, read from
 * /proc/PID/status (VmRSS), since a start command may be a script around the
 * process that serves (tests/oracle/run-broker is one around java).
 */
final class ProcTree {
    private ProcTree() {}

    /** The root and its living descendants. */
    static List<ProcessHandle> members(ProcessHandle root) {
        List<ProcessHandle> all = new ArrayList<>();
        all.add(root);
        root.descendants().forEach(all::add);
        return all;
    }

    /** VmRSS summed over the tree, in KiB; -1 when /proc cannot be read for the root. */
    static long rssKiB(ProcessHandle root) {
        long sum = 0;
        for (ProcessHandle p : members(root)) {
            long kib = field("/proc/" + p.pid() + "/status", "VmRSS:");
            if (kib < 0 && p.equals(root)) {
                return -1;
            }
            sum += Math.max(kib, 0);
        }
        return sum;
    }

    /**
     * CPU time (user + system) of the tree's living members, in seconds, from
     * /proc/PID/stat fields 14 and 15. They count in USER_HZ ticks, which the
     * kernel fixes at 100 for user space on every architecture this runs on
     * (proc(5)); -1 when the root's cannot be read.
     */
    static double cpuSeconds(ProcessHandle root) {
        long ticks = 0;
        for (ProcessHandle p : members(root)) {
            long t = cpuTicks(p.pid());
            if (t < 0 && p.equals(root)) {
                return -1;
            }
            ticks += Math.max(t, 0);
        }
        return ticks / 100.0;
    }

    private static long cpuTicks(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            // after "pid (comm) ": state is field 3, utime 14, stime 15
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(f[11]) + Long.parseLong(f[12]);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** The number after KEY in a /proc file of "Key:  123 kB" lines; -1 when absent. */
    static long field(String path, String key) {
        try {
            for (String line : Files.readAllLines(Path.of(path))) {
                if (line.startsWith(key)) {
                    String[] parts = line.substring(key.length()).trim().split("\\s+");
                    return Long.parseLong(parts[0]);
                }
            }
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
        return -1;
    }
}
