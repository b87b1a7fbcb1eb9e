package io.kfp.common.kafka;

import java.io.Serializable;
import java.time.Duration;
import java.util.Properties;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Proof on the broker that a job runs: while it runs, the job is a member of a consumer group of
 * its own per consumer group it reads with and per transactional-id prefix it writes with ({@link
 * #groupOf}, {@link #prefixOf}); a job about to start that finds a member there knows another copy
 * holds that group or prefix - on this cluster or another, under its name or another, idle or busy
 * - and refuses to start (preflight). Two copies would each read every record and write it twice,
 * and fence each other's transactions.
 *
 * <p>The member subscribes to no topic: it reads nothing and is assigned nothing, it only keeps its
 * session, which ends when the job stops (a closed consumer leaves at once) or within {@link
 * #SESSION_TIMEOUT} of the process dying. Held by subtask 0 of the source reader and of the
 * exactly-once sink's committer. A lease that cannot be held (no ACL, broker down) is logged and
 * the job runs on: the lease guards starts, never a running job.
 */
public final class JobLease implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(JobLease.class);

    /** How long a member of a process that died (kill -9, a lost host) is still listed. */
    public static final Duration SESSION_TIMEOUT = Duration.ofSeconds(10);

    private static final Pattern NO_TOPIC = Pattern.compile("a^");

    /** What to hold and where, built where the job is. */
    public record Claim(String leaseGroup, String what, String holder, Properties connection)
            implements Serializable {}

    /** The lease group of a job that reads with consumer group {@code group}. */
    public static String groupOf(String group) {
        return "kfp-lease.group." + group;
    }

    /** The lease group of a job that writes exactly-once with transactional-id {@code prefix}. */
    public static String prefixOf(String prefix) {
        return "kfp-lease.transactional-id." + prefix;
    }

    /** The claim of a job that reads with {@code group}. */
    public static Claim ofGroup(String job, String group, Properties connection) {
        return new Claim(groupOf(group), "consumer group " + group, job, connection);
    }

    /** The claim of a job that writes exactly-once with {@code prefix}. */
    public static Claim ofPrefix(String job, String prefix, Properties connection) {
        return new Claim(prefixOf(prefix), "transactional-id prefix " + prefix, job, connection);
    }

    private final Claim claim;
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Thread thread;
    private volatile boolean closed;

    private JobLease(Claim claim) {
        this.claim = claim;
        Properties props = new Properties();
        props.putAll(claim.connection());
        props.setProperty(ConsumerConfig.GROUP_ID_CONFIG, claim.leaseGroup());
        props.setProperty(ConsumerConfig.CLIENT_ID_CONFIG, "kfp-lease." + safe(claim.holder()));
        props.setProperty(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
        props.setProperty(
                ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG,
                String.valueOf(SESSION_TIMEOUT.toMillis()));
        props.setProperty(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "2000");
        props.setProperty(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        this.consumer =
                new KafkaConsumer<>(
                        props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        this.thread = new Thread(this::hold, "kfp-lease " + claim.leaseGroup());
        this.thread.setDaemon(true);
    }

    /** Joins {@code claim}'s lease group and stays until {@link #close}. */
    public static JobLease hold(Claim claim) {
        JobLease lease = new JobLease(claim);
        lease.consumer.subscribe(NO_TOPIC);
        lease.thread.start();
        return lease;
    }

    private void hold() {
        boolean warned = false;
        try {
            while (!closed) {
                try {
                    consumer.poll(Duration.ofSeconds(1));
                } catch (WakeupException e) {
                    break;
                } catch (KafkaException e) {
                    if (!warned) {
                        LOG.warn(
                                "Cannot hold the lease of {} ({}) in consumer group {}: a second copy"
                                        + " of {} started now would not be refused. Allow Read on that"
                                        + " group (kfp acls prints it). Trying on.",
                                claim.what(),
                                e.toString(),
                                claim.leaseGroup(),
                                claim.holder());
                        warned = true;
                    }
                    sleep();
                }
            }
        } finally {
            consumer.close(Duration.ofSeconds(5));
        }
    }

    private void sleep() {
        try {
            Thread.sleep(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            closed = true;
        }
    }

    /** Leaves the lease group (at once: the next start finds it empty). */
    @Override
    public void close() {
        closed = true;
        consumer.wakeup();
        try {
            thread.join(Duration.ofSeconds(10).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String safe(String name) {
        return name.replaceAll("[^A-Za-z0-9._-]", "_");
    }
}
