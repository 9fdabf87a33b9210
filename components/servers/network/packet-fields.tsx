import { Field, INPUT_STYLE } from "@/components/ui/field";

type Direction = "in" | "out";

/** Inbound or outbound: the first question of a rule and of a simulated packet. */
export function DirectionField(props: {
  id: string;
  value: Direction;
  onChange: (value: Direction) => void;
}) {
  return (
    <Field id={props.id} label="Direction">
      <select
        id={props.id}
        className={INPUT_STYLE}
        value={props.value}
        onChange={(event) => props.onChange(event.target.value as Direction)}
      >
        <option value="in">inbound</option>
        <option value="out">outbound</option>
      </select>
    </Field>
  );
}

/** The protocol of a rule (which may match any) or of one packet (which has one of the three). */
export function ProtocolField<P extends string>(props: {
  id: string;
  value: P;
  onChange: (value: P) => void;
  protocols: readonly P[];
}) {
  return (
    <Field id={props.id} label="Protocol">
      <select
        id={props.id}
        className={INPUT_STYLE}
        value={props.value}
        onChange={(event) => props.onChange(event.target.value as P)}
      >
        {props.protocols.map((protocol) => (
          <option key={protocol} value={protocol}>
            {protocol}
          </option>
        ))}
      </select>
    </Field>
  );
}
