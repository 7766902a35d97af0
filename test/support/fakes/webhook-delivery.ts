/**
 * What the fake webhook receiver (webhook-receiver.ts, Node) records of one request, as the webhook tests
 * (test/support/webhook-helpers.ts, Workers) read it back: a type alone, so both programs share it.
 */
export interface ReceivedDelivery {
  path: string;
  id: string | null;
  timestamp: string | null;
  signature: string | null;
  content_type: string | null;
  user_agent: string | null;
  body: string;
  /** A signature of the header matched one of the box's secrets, with a timestamp within 5 minutes. */
  verified: boolean;
  received_at: number;
}
