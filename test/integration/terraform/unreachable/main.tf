# The provider's S3 endpoint is a variable so the test can make it unreachable while the state
# backend still works: the AWS provider then reports the bucket "deleted outside Terraform" in an
# errored plan (DESIGN.md principle 3).
terraform {
  required_providers {
    aws = { source = "hashicorp/aws", version = "~> 5.100" }
  }
  backend "s3" {
    use_lockfile = true
  }
}

variable "s3_endpoint" {
  type    = string
  default = null
}

# Only the scan against the unreachable endpoint lowers this (so it fails fast): the apply that
# stages the workspace against moto keeps the provider's retries, since a single dropped
# keep-alive connection would otherwise fail the whole test file. The provider skips its STS
# calls for the same reason: with one attempt, only the unreachable S3 endpoint may fail.
variable "max_retries" {
  type    = number
  default = 25
}

provider "aws" {
  region      = "eu-west-1"
  max_retries = var.max_retries

  skip_credentials_validation = true
  skip_requesting_account_id  = true
  endpoints {
    s3 = var.s3_endpoint
  }
}

resource "aws_s3_bucket" "archive" {
  bucket = "unreachable-archive"
}

resource "aws_s3_bucket_versioning" "archive" {
  bucket = aws_s3_bucket.archive.id
  versioning_configuration {
    status = "Enabled"
  }
}
