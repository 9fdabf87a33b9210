CREATE TABLE "server_metrics" (
	"server_id" integer NOT NULL,
	"step_seconds" integer NOT NULL,
	"bucket" timestamp with time zone NOT NULL,
	"seconds" integer NOT NULL,
	"memory_samples" integer NOT NULL,
	"memory_kib_sum" bigint NOT NULL,
	"cpu_ms" bigint NOT NULL,
	"rx_bytes" bigint NOT NULL,
	"tx_bytes" bigint NOT NULL,
	"read_bytes" bigint NOT NULL,
	"write_bytes" bigint NOT NULL,
	CONSTRAINT "server_metrics_pk" PRIMARY KEY("server_id","step_seconds","bucket"),
	CONSTRAINT "server_metrics_step_check" CHECK ("server_metrics"."step_seconds" IN (60, 300, 3600))
);--> statement-breakpoint
CREATE TABLE "server_traffic" (
	"server_id" integer NOT NULL,
	"period_start" timestamp with time zone NOT NULL,
	"period_end" timestamp with time zone NOT NULL,
	"allowance_bytes" bigint NOT NULL,
	"rx_bytes" bigint DEFAULT 0 NOT NULL,
	"tx_bytes" bigint DEFAULT 0 NOT NULL,
	"reached_80_at" timestamp with time zone,
	"reached_100_at" timestamp with time zone,
	CONSTRAINT "server_traffic_pk" PRIMARY KEY("server_id","period_start"),
	CONSTRAINT "server_traffic_period_check" CHECK ("server_traffic"."period_end" > "server_traffic"."period_start")
);--> statement-breakpoint
CREATE TABLE "server_metric_state" (
	"server_id" integer PRIMARY KEY NOT NULL,
	"read_at" timestamp with time zone NOT NULL,
	"cpu_ms" bigint NOT NULL,
	"rx_bytes" bigint NOT NULL,
	"tx_bytes" bigint NOT NULL,
	"read_bytes" bigint NOT NULL,
	"write_bytes" bigint NOT NULL,
	"slowed_mbps" integer,
	"slowed_at" timestamp with time zone
);--> statement-breakpoint
ALTER TABLE "server_metrics" ADD CONSTRAINT "server_metrics_server_id_servers_id_fk" FOREIGN KEY ("server_id") REFERENCES "public"."servers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "server_traffic" ADD CONSTRAINT "server_traffic_server_id_servers_id_fk" FOREIGN KEY ("server_id") REFERENCES "public"."servers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "server_metric_state" ADD CONSTRAINT "server_metric_state_server_id_servers_id_fk" FOREIGN KEY ("server_id") REFERENCES "public"."servers"("id") ON DELETE cascade ON UPDATE no action;
