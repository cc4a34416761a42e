package journal

// smsOutboxSchema holds calq sms's outbox (owned by the sms outbox work).
const smsOutboxSchema = `SELECT 1`
