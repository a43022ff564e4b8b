package io.rkllm.server.backend.rkllm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.Test;

/** Who may open an NPU device node, and the driver versions' order (the rest: DoctorTest, on a fake board). */
class NpuChecksTest {

    @Test
    void deviceAccessFollowsOwnerGroupOther() {
        Accounts.User user = new Accounts.User("rkllm", 990, 990, Set.of(990, 44));
        assertThat(NpuChecks.canReadWrite(user, 0, 44, 0660)).isTrue();
        assertThat(NpuChecks.canReadWrite(user, 0, 45, 0660)).isFalse();
        assertThat(NpuChecks.canReadWrite(user, 0, 45, 0666)).isTrue();
        assertThat(NpuChecks.canReadWrite(user, 990, 0, 0600)).isTrue();
        assertThat(NpuChecks.canReadWrite(user, 0, 44, 0640)).isFalse();
        assertThat(NpuChecks.compare(new int[] {0, 9, 10}, new int[] {0, 9, 8})).isPositive();
        assertThat(NpuChecks.compare(new int[] {0, 9, 6}, new int[] {0, 9, 8})).isNegative();
    }
}
