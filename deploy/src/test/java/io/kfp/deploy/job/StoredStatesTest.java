package io.kfp.deploy.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.util.List;
import org.apache.flink.core.fs.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What kfp savepoints lists: savepoints and retained checkpoints that have their _metadata. */
class StoredStatesTest {

    @TempDir java.nio.file.Path dir;

    @Test
    void listsEachStateWithMetadataAndNothingBeingWritten() throws Exception {
        String job = "0123456789abcdef0123456789abcdef";
        for (String state :
                List.of(
                        "checkpoints/" + job + "/chk-7",
                        "savepoints/savepoint-012345-aaaaaaaaaaaa")) {
            Files.createDirectories(dir.resolve(state));
            Files.writeString(dir.resolve(state).resolve("_metadata"), "");
        }
        // Being written (no _metadata yet), or not a state at all.
        Files.createDirectories(dir.resolve("checkpoints/" + job + "/chk-8"));
        Files.createDirectories(dir.resolve("checkpoints/" + job + "/shared"));
        Files.createDirectories(dir.resolve("savepoints/savepoint-012345-bbbbbbbbbbbb"));
        Files.createDirectories(dir.resolve("checkpoints/not-a-job/chk-1"));
        Files.writeString(dir.resolve("checkpoints/not-a-job/chk-1/_metadata"), "");

        List<StoredStates.Stored> stored =
                StoredStates.list(
                        new Path(dir.resolve("checkpoints").toUri()),
                        new Path(dir.resolve("savepoints").toUri()));
        assertThat(stored)
                .extracting(StoredStates.Stored::kind, s -> s.path().replaceAll(".*/", ""))
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple("checkpoint", "chk-7"),
                        org.assertj.core.groups.Tuple.tuple(
                                "savepoint", "savepoint-012345-aaaaaaaaaaaa"));
        assertThat(stored).allSatisfy(s -> assertThat(s.writtenAt()).isPositive());
        assertThat(
                        StoredStates.list(
                                new Path(dir.resolve("none").toUri()),
                                new Path(dir.resolve("none2").toUri())))
                .isEmpty();
    }

    @Test
    void deletesAStateAndAJobsDirectoryWithItsLastCheckpoint() throws Exception {
        String job = "0123456789abcdef0123456789abcdef";
        java.nio.file.Path jobDir = dir.resolve("checkpoints/" + job);
        for (String state : List.of("chk-7", "chk-8")) {
            Files.createDirectories(jobDir.resolve(state));
            Files.writeString(jobDir.resolve(state).resolve("_metadata"), "");
        }
        Files.createDirectories(jobDir.resolve("shared"));
        Files.writeString(jobDir.resolve("shared/sst-1"), "");
        java.nio.file.Path savepoint = dir.resolve("savepoints/savepoint-012345-aaaaaaaaaaaa");
        Files.createDirectories(savepoint);
        Files.writeString(savepoint.resolve("_metadata"), "");

        StoredStates.delete(new Path(jobDir.resolve("chk-7").toString()));
        assertThat(jobDir.resolve("chk-7")).doesNotExist();
        assertThat(jobDir.resolve("shared/sst-1")).as("chk-8 may reference it").exists();
        StoredStates.delete(new Path(jobDir.resolve("chk-8").toString()));
        assertThat(jobDir).as("the job's last checkpoint: its shared files go too").doesNotExist();
        StoredStates.delete(new Path(savepoint.toString()));
        assertThat(savepoint).doesNotExist();

        java.nio.file.Path notAState = Files.createDirectories(dir.resolve("savepoints/other"));
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> StoredStates.delete(new Path(notAState.toString())))
                .hasMessageEndingWith("is no savepoint or checkpoint (it has no _metadata)");
        assertThat(notAState).exists();
    }
}
